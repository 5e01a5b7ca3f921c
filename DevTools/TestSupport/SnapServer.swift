import Glibc
import Synchronization
import TestProcess

/// A real snapserver (Debian's 0.26, `/usr/bin/snapserver`) on 127.0.0.1 for end-to-end tests: no config
/// file, everything on the command line, its state (`server.json`) and pipe sources in a temporary
/// directory, free ports for the stream (binary protocol) and control (JSON-RPC) servers, HTTP off.
/// `feed` writes PCM into a pipe source at real-time pace; `restart` brings it back on the same ports.
/// Stopped by `stop()` or on release.
public final class SnapServer: Sendable {
    /// One `--stream.source`. `codec` overrides the server's `--stream.codec` for this source.
    public enum Source: Sendable, Equatable {
        /// `pipe://DIR/NAME.fifo?...&mode=create`: the server makes the FIFO and reads it non-blocking.
        case pipe(name: String, codec: String? = nil)
        /// `tcp://127.0.0.1:PORT?...`: the server listens on a free port (`tcpPort(name)`) for one writer.
        case tcp(name: String, codec: String? = nil)

        public var name: String {
            switch self {
            case .pipe(let name, _), .tcp(let name, _): name
            }
        }
    }

    public static let program = "/usr/bin/snapserver"
    /// Whether the tests can run it (Debian's snapserver package is installed).
    public static var isInstalled: Bool { access(program, X_OK) == 0 }
    /// The sample format every source declares (what `feed` writes).
    public static let sampleRate = 48_000
    public static let channels = 2

    public let codec: String
    public let bufferMs: Int
    public let sources: [Source]
    /// The binary stream protocol (snapclient's port, 1704 by default).
    public let streamPort: Int
    /// The JSON-RPC control port (1705 by default), newline-delimited over TCP.
    public let controlPort: Int
    private let tcpPorts: [String: Int]
    private let directory: TemporaryDirectory
    private let server: Mutex<(process: ServerProcess, starts: Int)>

    /// Starts snapserver with `sources` and returns once its stream and control ports accept connections
    /// and its FIFOs exist. A port taken by another socket before the server bound it: again on new ports.
    public static func start(
        codec: String = "flac", bufferMs: Int = 400, sources: [Source] = [.pipe(name: "default")], timeout: Duration = .seconds(20)
    ) async throws -> SnapServer {
        var attempt = 1
        while true {
            do {
                let ports = try (0..<(2 + sources.count)).map { _ in try ReservedPort.fresh() }.map(\.port)
                return try await SnapServer(codec: codec, bufferMs: bufferMs, sources: sources, ports: ports, timeout: timeout)
            } catch let error as ServerProcessError where error.exited && attempt < 3 {
                attempt += 1
            }
        }
    }

    private init(codec: String, bufferMs: Int, sources: [Source], ports: [Int], timeout: Duration) async throws {
        self.codec = codec
        self.bufferMs = bufferMs
        self.sources = sources
        streamPort = ports[0]
        controlPort = ports[1]
        var tcpPorts: [String: Int] = [:]
        for (index, source) in sources.enumerated() where source.isTCP { tcpPorts[source.name] = ports[2 + index] }
        self.tcpPorts = tcpPorts
        directory = TemporaryDirectory(prefix: "jv-snapserver")
        let process = try ServerProcess(Self.argv(directory.path, codec, bufferMs, sources, ports), name: "snapserver", logsIn: directory)
        server = Mutex((process, 1))
        try await waitUntilReady(process, timeout: timeout)
    }

    static func argv(_ directory: String, _ codec: String, _ bufferMs: Int, _ sources: [Source], _ ports: [Int]) -> [String] {
        let format = "sampleformat=\(sampleRate):16:\(channels)"
        let uris = sources.enumerated().map { index, source in
            let query = "name=\(source.name)&\(format)" + (source.codec.map { "&codec=\($0)" } ?? "")
            return switch source {
            case .pipe: "pipe://\(directory)/\(source.name).fifo?\(query)&mode=create"
            case .tcp: "tcp://127.0.0.1:\(ports[2 + index])?\(query)"
            }
        }
        // A missing -c file is ignored: nothing but these flags configures it (no /etc/snapserver.conf).
        return [
            program, "-c", "\(directory)/none.conf", "--server.datadir=\(directory)", "--logging.sink=stderr", "--http.enabled=false",
            "--tcp.bind_to_address=127.0.0.1", "--tcp.port=\(ports[1])", "--stream.bind_to_address=127.0.0.1",
            "--stream.port=\(ports[0])", "--stream.buffer=\(bufferMs)", "--stream.codec=\(codec)"
        ] + uris.map { "--stream.source=\($0)" }
    }

    private func waitUntilReady(_ process: ServerProcess, timeout: Duration) async throws {
        let fifos = sources.filter { !$0.isTCP }.map { fifoPath($0.name) }
        try await process.waitForIt(to: "accept on ports \(streamPort) and \(controlPort)", within: timeout) {
            Self.accepts(port: streamPort) && Self.accepts(port: controlPort) && fifos.allSatisfy(TestFiles.exists)
        }
    }

    /// The FIFO of pipe source `name`.
    public func fifoPath(_ name: String) -> String { directory.file("\(name).fifo") }

    /// The port tcp source `name` listens on.
    public func tcpPort(_ name: String) -> Int? { tcpPorts[name] }

    /// Writes interleaved S16 stereo at 48 kHz into pipe source `name` at wall-clock pace from its own
    /// thread: `generator(firstFrame, frames)` gives the next block, nil ends the feed.
    public func feed(_ name: String, generator: @escaping SnapFeed.Generator) throws -> SnapFeed {
        try SnapFeed.start(path: fifoPath(name), channels: Self.channels, sampleRate: Self.sampleRate, generator: generator)
    }

    /// Writes `samples` (interleaved S16 stereo, 48 kHz) into pipe source `name` once, at wall-clock pace.
    public func feed(_ name: String, samples: [Int16]) throws -> SnapFeed {
        let channels = Self.channels
        return try feed(name) { first, frames in
            let start = first * channels
            guard start < samples.count else { return nil }
            return Array(samples[start..<min(samples.count, start + frames * channels)])
        }
    }

    /// What the current snapserver process wrote.
    public var log: String { server.withLock { $0.process.log } }

    /// The exit code once the server has exited, else nil.
    public var exitStatus: Int32? { server.withLock { $0.process.exitStatus } }

    /// SIGTERM; returns once it has exited.
    public func stop() async { await server.withLock { $0.process }.stop() }

    /// Stops the server if it runs and starts it again on the same ports, directory and state (a server
    /// restart as clients see it); returns once it accepts connections again.
    public func restart(timeout: Duration = .seconds(20)) async throws {
        await stop()
        let starts = server.withLock { $0.starts } + 1
        let argv = Self.argv(directory.path, codec, bufferMs, sources, [streamPort, controlPort] + sources.map { tcpPorts[$0.name] ?? 0 })
        let process = try ServerProcess(argv, name: "snapserver-\(starts)", logsIn: directory)
        server.withLock { $0 = (process, starts) }
        try await waitUntilReady(process, timeout: timeout)
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted (closed again at once).
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

extension SnapServer.Source {
    var isTCP: Bool {
        if case .tcp = self { return true }
        return false
    }

    var codec: String? {
        switch self {
        case .pipe(_, let codec), .tcp(_, let codec): codec
        }
    }
}

import Glibc
import Snapcast
import TestProcess
import TestSupport
import Testing

/// The session against Debian's real snapserver 0.26 on 127.0.0.1, over a plain socket.
@Suite(.enabled(if: access("/usr/bin/snapserver", X_OK) == 0, "needs snapserver (Debian's package)"))
struct SnapserverTests {
    @Test(.timeLimit(.minutes(1))) func theSessionSyncsAndReceivesPCMChunks() async throws {
        // Released at the end of the test, the server is killed and reaped (`BackgroundProcess`).
        let server = try await PrivateSnapServer.start()
        let socket = try PlainSocket(port: server.streamPort)
        defer { socket.close() }

        var session = SnapcastSession(configuration: SnapcastSessionConfiguration(hello: SnapcastHello(id: "snapcast-test", hostName: "test")))
        var inspector = SnapcastFrameDecoder()
        var headers: [SnapcastHeader] = []
        var settings: [SnapcastServerSettings] = []
        var codec: (name: String, payload: [UInt8])?
        var chunks: [(timestamp: Int64, receivedAt: Int64, bytes: Int)] = []
        var problems: [SnapcastEffect] = []
        var helloID: UInt16?

        func run(_ effects: [SnapcastEffect]) throws {
            for effect in effects {
                switch effect {
                case .send(let bytes):
                    if helloID == nil, let header = SnapcastHeader(parsing: bytes[...]), header.type == .hello { helloID = header.id }
                    try socket.send(bytes)
                case .settingsChanged(let value): settings.append(value)
                case .codecHeader(let name, let payload): codec = (name, payload)
                case .chunk(let timestamp, let payload): chunks.append((timestamp, monotonicNow(), payload.count))
                case .reconnect, .protocolError, .serverError: problems.append(effect)
                }
            }
        }

        try run(session.connected(now: monotonicNow()))
        let pcm = (0..<(48_000 * 4 * 6 / 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) }  // 600 ms of 48000:16:2
        var written = 0
        var fifo: Int32 = -1
        defer { if fifo >= 0 { Glibc.close(fifo) } }
        let deadline = monotonicNow() + 8_000_000_000
        while monotonicNow() < deadline, problems.isEmpty {
            // Read-write: a write-only open fails (ENXIO) unless the server has the fifo open at that instant, and
            // it only does for a moment every 100 ms while no writer is there.
            if fifo < 0 { fifo = open(server.fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
            if fifo >= 0, written < pcm.count {
                let count = pcm[written...].withUnsafeBytes { Glibc.write(fifo, $0.baseAddress, min($0.count, 19_200)) }
                if count > 0 { written += count }
            }
            let bytes = try socket.receive(waitingMilliseconds: 10)
            let now = monotonicNow()
            inspector.append(bytes)
            while let frame = try inspector.next(receivedAt: now) { headers.append(frame.header) }
            try run(session.received(bytes, now: now))
            try run(session.tick(now: monotonicNow()))
            if session.state.synced, chunks.count >= 10 { break }
        }

        #expect(problems.isEmpty, "\(problems); server log:\n\(server.process.log)")
        let settingsHeader = try #require(headers.first { $0.type == .serverSettings }, "no ServerSettings; log:\n\(server.process.log)")
        #expect(settingsHeader.refersTo == helloID)
        #expect(settings.first?.bufferMs == 400 && settings.first?.volume == 100 && settings.first?.muted == false)
        #expect(codec?.name == "pcm")
        let riff = codec?.payload ?? []
        #expect(riff.count == 44 && riff.starts(with: Array("RIFF".utf8)) && Array(riff[8..<12]) == Array("WAVE".utf8))
        #expect(chunks.count >= 10, "chunks: \(chunks.count); log:\n\(server.process.log)")
        #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp }, "chunk timestamps increase")
        // chunk_ms defaults to 20: each chunk is 20 ms of 48000:16:2, stamped 20 ms after the one before.
        #expect(chunks.allSatisfy { $0.bytes == 3_840 })
        #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $1.timestamp - $0.timestamp == 20_000_000 })
        for chunk in chunks {
            // Same host, same CLOCK_MONOTONIC: a chunk is stamped when the server read it, just before we got it.
            let age = chunk.receivedAt - chunk.timestamp
            #expect(age > -5_000_000 && age < 1_000_000_000, "chunk \(chunk.timestamp) received at \(chunk.receivedAt)")
        }
        let state = session.state
        #expect(state.synced && state.samples >= 50)
        let offset = try #require(state.offsetNanoseconds)
        #expect(abs(offset) < 2_000_000, "offset \(offset) ns, spread \(state.spreadMicroseconds ?? -1) µs")
        #expect(state.settings?.bufferMs == 400 && state.codec == "pcm")
    }
}

/// CLOCK_MONOTONIC in ns: the clock snapserver stamps with.
private func monotonicNow() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// A private snapserver with one PCM pipe source (to be replaced by TestSupport's shared launcher).
private struct PrivateSnapServer {
    let process: ServerProcess
    let directory: TemporaryDirectory
    let streamPort: Int
    let fifo: String

    static func start() async throws -> PrivateSnapServer {
        var attempt = 1
        while true {
            do {
                return try await PrivateSnapServer(controlPort: try ReservedPort.fresh().port, streamPort: try ReservedPort.fresh().port)
            } catch let error as ServerProcessError where error.exited && attempt < 3 {
                attempt += 1  // a port was taken between choosing and binding it
            }
        }
    }

    private init(controlPort: Int, streamPort: Int) async throws {
        directory = TemporaryDirectory(prefix: "jv-snapserver")
        let dir = directory.path
        fifo = directory.file("a.fifo")
        self.streamPort = streamPort
        process = try ServerProcess(
            [
                "/usr/bin/snapserver", "-c", "\(dir)/none.conf", "--server.datadir=\(dir)", "--logging.sink=stderr", "--http.enabled=false",
                "--tcp.bind_to_address=127.0.0.1", "--tcp.port=\(controlPort)", "--stream.bind_to_address=127.0.0.1",
                "--stream.port=\(streamPort)", "--stream.buffer=400",
                "--stream.source=pipe://\(fifo)?name=pcm&codec=pcm&sampleformat=48000:16:2&mode=create"
            ], name: "snapserver", logsIn: directory)
        try await process.waitForIt(to: "listen on port \(streamPort)", within: .seconds(10)) { PlainSocket.accepts(port: streamPort) }
    }
}

/// A blocking TCP socket to 127.0.0.1 with TCP_NODELAY, as the product's client will use.
private final class PlainSocket {
    private var fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0, Self.connect(fd, port: port) else {
            if fd >= 0 { Glibc.close(fd) }
            throw SocketError(what: "connect to 127.0.0.1:\(port)", errno: errno)
        }
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { Glibc.close(fd) }
        return fd >= 0 && connect(fd, port: port)
    }

    private static func connect(_ fd: Int32, port: Int) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw SocketError(what: "send", errno: errno) }
            offset += count
        }
    }

    /// What arrives within `waitingMilliseconds` (empty if nothing); throws when the server closed.
    func receive(waitingMilliseconds: Int32) throws -> [UInt8] {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, waitingMilliseconds) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw SocketError(what: "recv (server closed)", errno: errno) }
        return Array(buffer[..<count])
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

private struct SocketError: Error, CustomStringConvertible {
    var what: String
    var errno: Int32
    var description: String { "\(what): \(String(cString: strerror(errno)))" }
}

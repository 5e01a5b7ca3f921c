import AudioCore
import Codecs
import Glibc
import TestSupport
import Testing

/// The decoder against what a real snapserver 0.26 sends: a 1 kHz sine written into a pipe source comes
/// back as a 1 kHz sine, and every chunk decodes to exactly the frames its timestamp step says.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SnapcastServerDecodeTests {
    static let level = 8_000.0

    static func tone(first: Int, frames: Int) -> [Int16] {
        (first..<(first + frames)).flatMap { index in
            [Int16](repeating: Int16(level * sin(2 * Double.pi * 1_000 * Double(index) / 48_000)), count: 2)
        }
    }

    typealias Chunk = (timestamp: Int64, frames: Int)

    /// Streams the tone through a snapserver sending `codec` and decodes 3 s of it: each chunk's
    /// timestamp (µs) and decoded frames, and all samples.
    static func received(_ codec: String) async throws -> (chunks: [Chunk], samples: [Int16]) {
        let server = try await SnapServer.start(codec: codec, bufferMs: 400, sources: [.pipe(name: "tone")])
        let feed = try server.feed("tone") { first, frames in tone(first: first, frames: frames) }
        let client = try SnapStreamClient(port: server.streamPort)
        try client.sendHello()
        var decoder: SnapcastChunkDecoder?
        var chunks: [Chunk] = []
        var samples: [Int16] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while chunks.reduce(0, { $0 + $1.frames }) < 3 * 48_000, ContinuousClock.now < deadline {
            let (type, payload) = try await client.receive()
            if type == 1 {
                let (name, header) = try SnapStreamClient.codecHeader(payload)
                #expect(name == codec)
                decoder = try SnapcastChunkDecoder(codec: name, header: header)
            } else if type == 2, let decoder, payload.count >= 12 {
                let timestamp =
                    Int64(Int32(bitPattern: SnapStreamClient.le32(payload, 0))) * 1_000_000
                    + Int64(Int32(bitPattern: SnapStreamClient.le32(payload, 4)))
                var frames = 0
                try decoder.decode(Array(payload[12...])) { block in
                    #expect(block.format == AudioFormat(sampleRate: 48_000, channels: 2))
                    frames += block.frameCount
                    samples.append(contentsOf: block.samples)
                }
                chunks.append((timestamp, frames))
            }
        }
        #expect(samples.count >= 3 * 48_000 * 2, "3 s of audio within 60 s; server log:\n\(server.log)")
        await feed.stop()
        await server.stop()
        return (chunks, samples)
    }

    /// The last 2 s of the left channel: a 1 kHz sine at the tone's level (within `tolerance`).
    static func expectTone(_ samples: [Int16], tolerance: Double) {
        let tail = Array(channelSamples(samples, channels: 2).suffix(2 * 48_000))
        #expect(abs(estimatedFrequency(tail, sampleRate: 48_000) - 1_000) < 2)
        #expect(abs(Double(peak(tail)) - level) < level * tolerance, "peak \(peak(tail))")
    }

    @Test(.enabled(if: SnapServer.isInstalled), arguments: ["pcm", "flac", "opus", "ogg"])
    func aSineComesBackWithEveryChunksFrames(codec: String) async throws {
        let (chunks, samples) = try await Self.received(codec)
        // Each chunk's frames span exactly the step to the next chunk's timestamp (µs, rounded by the server),
        // unless the feed fell behind on a loaded machine: the server then starts a later timeline, never
        // an overlapping one.
        var exact = 0
        for (chunk, next) in zip(chunks, chunks.dropFirst()) {
            let step = next.timestamp - chunk.timestamp, frames = Int64(chunk.frames) * 1_000_000 / 48_000
            #expect(step >= frames - 1, "a \(chunk.frames)-frame chunk, then a \(step) µs step")
            if abs(step - frames) <= 1 { exact += 1 }
        }
        #expect(exact >= (chunks.count - 1) * 9 / 10, "\(exact) of \(chunks.count - 1) steps are the chunk's frames")
        let lossless = codec == "pcm" || codec == "flac"
        Self.expectTone(samples, tolerance: lossless ? 0.001 : 0.1)
        if lossless {
            #expect(channelSamples(samples, channels: 2) == channelSamples(samples, channels: 2, channel: 1), "lossless: as written")
        }
    }

    /// A restart keeps the ports and the FIFO: a new connection streams again, and so does the feed
    /// (it keeps writing if the new server opens the FIFO before a write fails, else it opens it again).
    @Test(.enabled(if: SnapServer.isInstalled)) func aRestartedServerStreamsOnTheSamePorts() async throws {
        let server = try await SnapServer.start(codec: "pcm", bufferMs: 200, sources: [.pipe(name: "tone")])
        let feed = try server.feed("tone") { first, frames in Self.tone(first: first, frames: frames) }
        let ports = (server.streamPort, server.controlPort)
        let before = try SnapStreamClient(port: server.streamPort)
        try before.sendHello()
        #expect(try await before.nextAudibleChunk() > 0)
        try await server.restart()
        #expect((server.streamPort, server.controlPort) == ports)
        await #expect(throws: (any Error).self) {
            while true { _ = try await before.receive() }
        }
        let after = try SnapStreamClient(port: server.streamPort)
        try after.sendHello()
        #expect(try await after.nextAudibleChunk() > 0, "server log:\n\(server.log)")
        await feed.stop()
        await server.stop()
    }

    @Test(.enabled(if: SnapServer.isInstalled)) func aFeedOfSamplesIsWrittenAtWallClockPace() async throws {
        let server = try await SnapServer.start(codec: "pcm", sources: [.pipe(name: "tone")])
        let started = ContinuousClock.now
        let feed = try server.feed("tone", samples: Self.tone(first: 0, frames: 48_000))
        #expect(await feed.finish(timeout: .seconds(30)))
        #expect(feed.framesWritten == 48_000)
        // 1 s of audio, less the 200 ms the feed keeps ahead of the clock
        #expect(ContinuousClock.now - started >= .milliseconds(790))
        await server.stop()
    }

    @Test(.enabled(if: SnapServer.isInstalled)) func aTCPSourceListensOnItsOwnPort() async throws {
        let server = try await SnapServer.start(sources: [.pipe(name: "music"), .tcp(name: "announce", codec: "pcm")])
        let port = try #require(server.tcpPort("announce"))
        #expect(![server.streamPort, server.controlPort].contains(port))
        #expect(server.tcpPort("music") == nil)
        #expect(throws: Never.self) { _ = try SnapStreamClient(port: port) }
        await server.stop()
    }
}

/// Just enough of Snapcast's binary protocol to get a stream: a Hello, then messages read whole. Each
/// message is a 26-byte little-endian header (type, id, refersTo, sent, received, size) and its payload.
private final class SnapStreamClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw ClientError(what: "connect to port \(port): errno \(errno)") }
    }

    deinit {
        close(fd)
    }

    func sendHello() throws {
        let json = Array(
            """
            {"MAC":"00:00:00:00:00:00","HostName":"t","Version":"0.26.0","ClientName":"t","OS":"Linux","Arch":"x86_64",\
            "Instance":1,"ID":"test-1","SnapStreamProtocolVersion":2}
            """.utf8)
        let payload = Self.bytes32(UInt32(json.count)) + json
        let header = Self.bytes16(5) + Self.bytes16(1) + Self.bytes16(0) + [UInt8](repeating: 0, count: 16) + Self.bytes32(UInt32(payload.count))
        let message = header + payload
        let sent = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == message.count else { throw ClientError(what: "send Hello: errno \(errno)") }
    }

    /// The next message's type and payload.
    func receive() async throws -> (type: UInt16, payload: [UInt8]) {
        try await fill(26)
        let type = UInt16(buffer[0]) | UInt16(buffer[1]) << 8
        let size = Int(Self.le32(buffer, 22))
        guard size <= 1_000_000 else { throw ClientError(what: "a \(size)-byte message") }
        try await fill(26 + size)
        let payload = Array(buffer[26..<(26 + size)])
        buffer.removeFirst(26 + size)
        return (type, payload)
    }

    /// The largest sample of the first WireChunk with sound in it (pcm: the payload after its 12-byte header).
    func nextAudibleChunk() async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let (type, payload) = try await receive()
            guard type == 2, payload.count > 12 else { continue }
            let loudest = stride(from: 12, to: payload.count - 1, by: 2).reduce(0) {
                max($0, abs(Int(Int16(bitPattern: UInt16(payload[$1]) | UInt16(payload[$1 + 1]) << 8))))
            }
            if loudest > 0 { return loudest }
        }
        return 0
    }

    /// A CodecHeader's codec name and payload (both u32-length-prefixed).
    static func codecHeader(_ payload: [UInt8]) throws -> (String, [UInt8]) {
        guard payload.count >= 4 else { throw ClientError(what: "a short CodecHeader") }
        let nameLength = Int(le32(payload, 0))
        guard payload.count >= 8 + nameLength else { throw ClientError(what: "a short CodecHeader") }
        let size = Int(le32(payload, 4 + nameLength))
        guard payload.count >= 8 + nameLength + size else { throw ClientError(what: "a short CodecHeader") }
        return (String(decoding: payload[4..<(4 + nameLength)], as: UTF8.self), Array(payload[(8 + nameLength)..<(8 + nameLength + size)]))
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    private static func bytes16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func bytes32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// Reads until `count` bytes are buffered, without blocking a thread of the test pool.
    private func fill(_ count: Int) async throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while buffer.count < count {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                buffer += chunk[0..<n]
            } else if n < 0, errno == EAGAIN || errno == EINTR {
                try await Task.sleep(for: .milliseconds(2))
            } else {
                throw ClientError(what: "the server closed the connection (recv \(n), errno \(errno))")
            }
        }
    }

    struct ClientError: Error, CustomStringConvertible {
        var what: String
        var description: String { "snapcast client: \(what)" }
    }
}

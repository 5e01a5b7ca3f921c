import Snapcast
import Testing

@Suite struct SnapcastFrameDecoderTests {
    typealias Server = SnapcastServerBytes

    private static let riff: [UInt8] = [
        0x52, 0x49, 0x46, 0x46, 0x24, 0, 0, 0, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20, 0x10, 0, 0, 0, 1, 0, 2, 0, 0x80, 0xbb, 0, 0,
        0, 0xee, 2, 0, 4, 0, 0x10, 0, 0x64, 0x61, 0x74, 0x61, 0, 0, 0, 0
    ]

    private func decodeAll(_ bytes: [UInt8], receivedAt: Int64 = 0) throws(SnapcastProtocolError) -> [SnapcastFrame] {
        var decoder = SnapcastFrameDecoder()
        decoder.append(bytes)
        var frames: [SnapcastFrame] = []
        while let frame = try decoder.next(receivedAt: receivedAt) { frames.append(frame) }
        #expect(decoder.bufferedByteCount == 0)
        return frames
    }

    private func decodeError(_ bytes: [UInt8]) -> SnapcastProtocolError? {
        do {
            _ = try decodeAll(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesEveryServerMessage() throws {
        let settings = SnapcastServerSettings(bufferMs: 400, latency: 0, muted: false, volume: 42)
        let stream =
            Server.settings(settings, refersTo: 1) + Server.codecHeader("pcm", Self.riff) + Server.chunk(63_788_000_001_000, [1, 2, 3, 4])
            + Server.timeReply(refersTo: 5, latency: -2_500_000, sent: 9_000_000_000)
            + Server.message(typeCode: 8, payload: Server.u32(401) + Server.sized("unauthorized") + Server.sized("need a token"))
        let frames = try decodeAll(stream, receivedAt: 77)
        #expect(
            frames.map(\.message) == [
                .serverSettings(settings), .codecHeader(codec: "pcm", payload: Self.riff),
                .wireChunk(timestampNanoseconds: 63_788_000_001_000, payload: [1, 2, 3, 4]), .time(latencyNanoseconds: -2_500_000),
                .error(code: 401, message: "unauthorized", details: "need a token")
            ])
        #expect(frames[0].header.refersTo == 1)
        #expect(frames[3].header.refersTo == 5 && frames[3].header.sentNanoseconds == 9_000_000_000)
        #expect(frames.allSatisfy { $0.header.receivedNanoseconds == 77 }, "the receiver stamps received")
    }

    @Test func bytesMayArriveOneAtATime() throws {
        let stream = Server.codecHeader("opus", [0x53, 0x55, 0x50, 0x4F]) + Server.chunk(1_000, [9]) + Server.chunk(2_000, [])
        var decoder = SnapcastFrameDecoder()
        var messages: [SnapcastMessage] = []
        for byte in stream {
            decoder.append([byte])
            while let frame = try decoder.next(receivedAt: 0) { messages.append(frame.message) }
        }
        #expect(
            messages == [
                .codecHeader(codec: "opus", payload: [0x53, 0x55, 0x50, 0x4F]), .wireChunk(timestampNanoseconds: 1_000, payload: [9]),
                .wireChunk(timestampNanoseconds: 2_000, payload: [])
            ])
    }

    @Test func unknownAndClientOnlyTypesAreSkippedBySize() throws {
        let stream =
            Server.message(typeCode: 99, payload: [1, 2, 3]) + Server.message(typeCode: 6, payload: Server.sized("{}"))
            + Server.message(typeCode: 0, payload: []) + Server.chunk(5_000, [7])
        let frames = try decodeAll(stream)
        #expect(
            frames.map(\.message) == [
                .skipped(typeCode: 99), .skipped(typeCode: 6), .skipped(typeCode: 0), .wireChunk(timestampNanoseconds: 5_000, payload: [7])
            ])
    }

    @Test func trailingPayloadBytesAreIgnored() throws {
        let frames = try decodeAll(Server.message(typeCode: 4, payload: Server.timeval(3_000) + [0xFF, 0xFF]))
        #expect(frames.map(\.message) == [.time(latencyNanoseconds: 3_000)])
    }

    @Test func aMessageAboveOneMegabyteIsRejectedFromItsHeader() throws {
        var header: [UInt8] = []
        SnapcastHeader(type: .wireChunk, size: 1_000_001).write(to: &header)
        #expect(decodeError(header) == .messageTooLarge(type: 2, size: 1_000_001))
        var big: [UInt8] = []
        SnapcastHeader(typeCode: 2, id: 0, refersTo: 0, sentNanoseconds: 0, receivedNanoseconds: 0, size: .max).write(to: &big)
        #expect(decodeError(big) == .messageTooLarge(type: 2, size: .max))
        let limit = Server.message(typeCode: 2, payload: Server.timeval(0) + Server.sized([UInt8](repeating: 0, count: 1_000_000 - 12)))
        #expect(try decodeAll(limit).count == 1, "exactly 1000000 bytes is allowed")
    }

    @Test func innerLengthsMustFitTheirMessage() {
        #expect(
            decodeError(Server.message(typeCode: 1, payload: Server.u32(4) + Array("pcm".utf8)))
                == .lengthExceedsMessage(type: 1, length: 4, available: 3))
        #expect(
            decodeError(Server.message(typeCode: 1, payload: Server.sized("pcm") + Server.u32(45) + Self.riff))
                == .lengthExceedsMessage(type: 1, length: 45, available: 44))
        #expect(
            decodeError(Server.message(typeCode: 2, payload: Server.timeval(0) + Server.u32(.max) + [1]))
                == .lengthExceedsMessage(type: 2, length: .max, available: 1))
        #expect(
            decodeError(Server.message(typeCode: 3, payload: Server.u32(100) + Array("{}".utf8)))
                == .lengthExceedsMessage(type: 3, length: 100, available: 2))
        #expect(
            decodeError(Server.message(typeCode: 8, payload: Server.u32(1) + Server.sized("x") + Server.u32(2)))
                == .lengthExceedsMessage(type: 8, length: 2, available: 0))
    }

    @Test func fixedFieldsMustFitTheirMessage() {
        #expect(decodeError(Server.message(typeCode: 4, payload: [0, 0, 0])) == .truncated(type: 4, needed: 8, available: 3))
        #expect(decodeError(Server.message(typeCode: 2, payload: Server.timeval(0) + [1, 0])) == .truncated(type: 2, needed: 4, available: 2))
        #expect(decodeError(Server.message(typeCode: 1, payload: [])) == .truncated(type: 1, needed: 4, available: 0))
        #expect(decodeError(Server.message(typeCode: 3, payload: [])) == .truncated(type: 3, needed: 4, available: 0))
        #expect(decodeError(Server.message(typeCode: 8, payload: [1])) == .truncated(type: 8, needed: 4, available: 1))
    }

    @Test func serverSettingsNeedEveryKeyWithItsType() {
        let good = #"{"bufferMs":400,"latency":0,"muted":false,"volume":42}"#
        #expect((try? decodeAll(Server.settings(good)))?.count == 1)
        #expect(decodeError(Server.settings("not json")) == .settingsNotJSON)
        #expect(decodeError(Server.settings("[1,2]")) == .settingsNotJSON)
        #expect(decodeError(Server.settings(#"{"latency":0,"muted":false,"volume":42}"#)) == .settingsKeyMissing("bufferMs"))
        #expect(decodeError(Server.settings(#"{"bufferMs":400,"muted":false,"volume":42}"#)) == .settingsKeyMissing("latency"))
        #expect(decodeError(Server.settings(#"{"bufferMs":400,"latency":0,"volume":42}"#)) == .settingsKeyMissing("muted"))
        #expect(decodeError(Server.settings(#"{"bufferMs":400,"latency":0,"muted":false}"#)) == .settingsKeyMissing("volume"))
        #expect(decodeError(Server.settings(#"{"bufferMs":"400","latency":0,"muted":false,"volume":42}"#)) == .settingsKeyMistyped("bufferMs"))
        #expect(decodeError(Server.settings(#"{"bufferMs":400,"latency":0.5,"muted":false,"volume":42}"#)) == .settingsKeyMistyped("latency"))
        #expect(decodeError(Server.settings(#"{"bufferMs":400,"latency":0,"muted":0,"volume":42}"#)) == .settingsKeyMistyped("muted"))
        #expect(decodeError(Server.settings(#"{"bufferMs":400,"latency":0,"muted":false,"volume":101}"#)) == .settingsKeyMistyped("volume"))
        #expect(decodeError(Server.settings(#"{"bufferMs":1e300,"latency":0,"muted":false,"volume":1}"#)) == .settingsKeyMistyped("bufferMs"))
    }

    @Test func aFailureIsFinalUntilReset() throws {
        var decoder = SnapcastFrameDecoder()
        decoder.append(Server.message(typeCode: 4, payload: [0]) + Server.chunk(1, [1]))
        #expect(throws: SnapcastProtocolError.truncated(type: 4, needed: 8, available: 1)) { try decoder.next(receivedAt: 0) }
        decoder.append(Server.chunk(2, [2]))
        #expect(throws: SnapcastProtocolError.truncated(type: 4, needed: 8, available: 1)) { try decoder.next(receivedAt: 0) }
        decoder.reset()
        decoder.append(Server.chunk(3_000, [3]))
        #expect(try decoder.next(receivedAt: 0)?.message == .wireChunk(timestampNanoseconds: 3_000, payload: [3]))
    }

    @Test func manyMessagesDecodeInLinearTime() throws {
        let chunk = Server.chunk(1, [UInt8](repeating: 0xAB, count: 100))
        var decoder = SnapcastFrameDecoder()
        var count = 0
        for _ in 0..<2_000 {
            decoder.append(chunk + chunk.prefix(50))
            decoder.append(chunk.dropFirst(50))
            while try decoder.next(receivedAt: 0) != nil { count += 1 }
        }
        #expect(count == 4_000 && decoder.bufferedByteCount == 0)
    }

    @Test func garbageNeverTraps() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var decoder = SnapcastFrameDecoder()
            let count = Int.random(in: 0..<200, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count >= 26 { bytes[22...25] = [UInt8(count - 26), 0, 0, 0] }  // sizes that fit, so the payload parsers run
            if bytes.count >= 2 {
                bytes[1] = 0
                bytes[0] = bytes[0] % 10
            }
            decoder.append(bytes)
            while (try? decoder.next(receivedAt: 0)) != nil {}
        }
    }
}

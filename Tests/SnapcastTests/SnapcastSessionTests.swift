import Basics
import Snapcast
import Testing

@Suite struct SnapcastSessionTests {
    typealias Server = SnapcastServerBytes

    static let ms: Int64 = 1_000_000
    static let settings = SnapcastServerSettings(bufferMs: 400, latency: 0, muted: false, volume: 42)

    /// A session on a manual clock against a scripted server whose clock runs `serverOffset` ahead of ours.
    struct Harness {
        var session: SnapcastSession
        var now: Int64 = 1_000 * SnapcastSessionTests.ms
        var serverOffset: Int64 = 0

        init(burstCount: Int = 50) {
            session = SnapcastSession(
                configuration: SnapcastSessionConfiguration(
                    hello: SnapcastHello(id: "test", hostName: "box"), burstCount: burstCount, jitterUnit: { 0.5 }))
        }

        mutating func advance(_ milliseconds: Int64) -> [SnapcastEffect] {
            now += milliseconds * SnapcastSessionTests.ms
            return session.tick(now: now)
        }

        mutating func receive(_ bytes: [UInt8]) -> [SnapcastEffect] { session.received(bytes, now: now) }

        /// Answers a Time request as a server would, with `out` and `back` ms on the wire.
        mutating func answer(_ request: [UInt8], out: Int64 = 1, back: Int64 = 1) -> [SnapcastEffect] {
            guard let header = Server.header(of: request), header.type == .time else {
                Issue.record("not a time request")
                return []
            }
            let serverReceived = header.sentNanoseconds + serverOffset + out * SnapcastSessionTests.ms
            now = max(now, header.sentNanoseconds) + (out + back) * SnapcastSessionTests.ms
            let serverSent = now - back * SnapcastSessionTests.ms + serverOffset
            let reply = Server.timeReply(refersTo: header.id, latency: serverReceived - header.sentNanoseconds, sent: serverSent)
            return receive(reply)
        }
    }

    static func sent(_ effects: [SnapcastEffect]) -> [[UInt8]] {
        effects.compactMap {
            if case .send(let bytes) = $0 { return bytes }
            return nil
        }
    }

    static func types(_ effects: [SnapcastEffect]) -> [SnapcastMessageType?] { sent(effects).map { Server.header(of: $0)?.type } }

    @Test func connectingSendsHelloThenTheFirstTimeRequest() throws {
        var harness = Harness()
        #expect(harness.session.nextDeadline == nil && harness.session.tick(now: harness.now).isEmpty)
        let effects = harness.session.connected(now: harness.now)
        #expect(Self.types(effects) == [.hello, .time])
        #expect(harness.session.nextDeadline == harness.now + 2_000 * Self.ms, "the reply timeout")
        let hello = try #require(Server.header(of: Self.sent(effects)[0]))
        #expect(hello.id == 1 && hello.sentNanoseconds == harness.now)
        #expect(Server.header(of: Self.sent(effects)[1])?.id == 2)
        #expect(harness.session.state.connected && !harness.session.state.synced)
    }

    @Test func theBurstFollowsRepliesThenOnePerSecond() throws {
        var harness = Harness()
        harness.serverOffset = 7_000 * Self.ms
        var request = Self.sent(harness.session.connected(now: harness.now))[1]
        #expect(harness.receive(Server.settings(Self.settings, refersTo: 1)) == [.settingsChanged(Self.settings)])
        for index in 1..<50 {
            let next = Self.sent(harness.answer(request))
            try #require(next.count == 1, "burst request \(index + 1) follows reply \(index)")
            request = next[0]
        }
        #expect(harness.answer(request).isEmpty, "the 50th reply ends the burst")
        #expect(harness.session.state.synced && harness.session.state.samples == 50)
        #expect(harness.session.state.offsetNanoseconds == 7_000 * Self.ms)
        #expect(harness.session.state.spreadMicroseconds == 0)
        #expect(harness.advance(999).isEmpty)
        let due = harness.advance(1)
        #expect(Self.types(due) == [.time], "one request a second after the last reply")
        #expect(harness.advance(100).isEmpty, "only one request in flight")
        _ = harness.answer(Self.sent(due)[0])
        #expect(harness.session.nextDeadline == harness.now + 1_000 * Self.ms)
    }

    @Test func theOffsetIsTheMedianOfAsymmetricReplies() throws {
        var harness = Harness(burstCount: 5)
        harness.serverOffset = -3 * Self.ms
        var request = Self.sent(harness.session.connected(now: harness.now))[1]
        // Symmetric legs, except one reply that queued 40 ms behind audio: the median ignores it.
        for back: Int64 in [1, 1, 41, 1] { request = Self.sent(harness.answer(request, out: 1, back: back))[0] }
        _ = harness.answer(request)
        #expect(harness.session.state.offsetNanoseconds == -3 * Self.ms)
        #expect(harness.session.serverNow(localNow: 10 * Self.ms) == 7 * Self.ms)
    }

    @Test func anUnansweredTimeRequestReconnectsWithBackoff() throws {
        var harness = Harness()
        _ = harness.session.connected(now: harness.now)
        #expect(harness.advance(1_999).isEmpty)
        #expect(harness.advance(1) == [.protocolError(.noReply(to: .hello, id: 1)), .reconnect(after: .seconds(1))])
        #expect(!harness.session.state.connected && harness.session.nextDeadline == nil)
        #expect(harness.advance(5_000).isEmpty && harness.receive(Server.chunk(1, [1])).isEmpty, "nothing until connected again")
        #expect(harness.session.disconnected(now: harness.now).isEmpty, "the session dropped it itself")
        #expect(harness.session.connectFailed(now: harness.now) == [.reconnect(after: .seconds(2))])

        let effects = harness.session.connected(now: harness.now)
        let hello = try #require(Server.header(of: Self.sent(effects)[0]))
        _ = harness.receive(Server.settings(Self.settings, refersTo: hello.id))
        #expect(
            harness.advance(2_000) == [.protocolError(.noReply(to: .time, id: hello.id + 1)), .reconnect(after: .seconds(1))],
            "ServerSettings reset the backoff")
    }

    @Test func aLateReplyIsIgnoredAndTheSyncStartsOverOnReconnect() throws {
        var harness = Harness(burstCount: 2)
        let first = Self.sent(harness.session.connected(now: harness.now))[1]
        _ = harness.answer(first)
        #expect(harness.session.state.samples == 1)
        _ = harness.session.disconnected(now: harness.now)
        let again = harness.session.connected(now: harness.now)
        #expect(harness.session.state.samples == 0 && harness.session.state.offsetNanoseconds == nil)
        #expect(harness.answer(first).isEmpty, "a reply to the old connection's request")
        #expect(harness.session.state.samples == 0)
        #expect(Self.sent(harness.answer(Self.sent(again)[1])).count == 1)
    }

    @Test func settingsCodecAndChunksReachThePlayer() throws {
        var harness = Harness()
        _ = harness.session.connected(now: harness.now)
        let riff = [UInt8](repeating: 1, count: 44)
        let effects = harness.receive(
            Server.settings(Self.settings, refersTo: 1) + Server.codecHeader("pcm", riff) + Server.chunk(5_000, [1, 2])
                + Server.settings(Self.settings) + Server.chunk(6_000, [3]))
        #expect(
            effects == [
                .settingsChanged(Self.settings), .codecHeader(codec: "pcm", payload: riff),
                .chunk(serverTimestampNanoseconds: 5_000, payload: [1, 2]),
                .chunk(serverTimestampNanoseconds: 6_000, payload: [3])
            ], "unchanged settings are not repeated")
        var louder = Self.settings
        louder.volume = 80
        louder.muted = true
        #expect(harness.receive(Server.settings(louder)) == [.settingsChanged(louder)])
        #expect(harness.session.state.settings == louder && harness.session.state.codec == "pcm")
    }

    @Test func aHelloAnsweredInTimeDoesNotTimeOut() throws {
        var harness = Harness()
        let request = Self.sent(harness.session.connected(now: harness.now))[1]
        harness.now += 500 * Self.ms
        _ = harness.receive(Server.settings(Self.settings, refersTo: 1))
        var next = Self.sent(harness.answer(request))[0]
        for _ in 0..<49 { next = Self.sent(harness.answer(next)).first ?? [] }
        #expect(harness.advance(2_500).count == 1, "only the 1 Hz request, no timeout")
    }

    @Test func aFramingErrorDropsTheConnection() {
        var harness = Harness()
        _ = harness.session.connected(now: harness.now)
        let effects = harness.receive(Server.chunk(1_000, [1]) + Server.message(typeCode: 4, payload: [0]) + Server.chunk(2_000, [2]))
        #expect(
            effects == [
                .chunk(serverTimestampNanoseconds: 1_000, payload: [1]), .protocolError(.truncated(type: 4, needed: 8, available: 1)),
                .reconnect(after: .seconds(1))
            ])
        #expect(harness.receive(Server.chunk(3, [3])).isEmpty)
    }

    @Test func aServerErrorIsReportedAndTheServerClosing() {
        var harness = Harness()
        _ = harness.session.connected(now: harness.now)
        let error = Server.message(typeCode: 8, payload: Server.u32(401) + Server.sized("Unauthorized") + Server.sized(""))
        #expect(harness.receive(error) == [.serverError(code: 401, message: "Unauthorized", details: "")])
        #expect(harness.session.disconnected(now: harness.now) == [.reconnect(after: .seconds(1))])
        #expect(harness.session.connectFailed(now: harness.now) == [.reconnect(after: .seconds(2))])
        #expect(harness.session.connectFailed(now: harness.now) == [.reconnect(after: .seconds(4))])
    }

    @Test func localVolumeGoesOutAsClientInfoWhileConnected() throws {
        var harness = Harness()
        #expect(harness.session.localVolumeChanged(volume: 30, muted: false, now: harness.now).isEmpty)
        _ = harness.session.connected(now: harness.now)
        let sent = Self.sent(harness.session.localVolumeChanged(volume: 30, muted: false, now: harness.now))
        #expect(sent.count == 1 && Server.header(of: sent[0])?.type == .clientInfo)
        #expect(Server.jsonText(of: sent[0]) == #"{"muted":false,"volume":30}"#)
    }
}

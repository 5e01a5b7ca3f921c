import Basics
import Realtime
import Synchronization

@testable import Conversation

/// An in-memory Realtime API for runner tests: client frames are recorded as the JSON text the runner
/// sent; server frames are JSON text decoded with the real `ServerEventDecoder`, as a socket would.
final class FakeRealtimeTransport: RealtimeTransport {
    enum ConnectOutcome: Sendable {
        case open
        case fail(RealtimeDisconnect)
        /// Never completes until cancelled.
        case hang
    }

    private struct State {
        var outcomes: [ConnectOutcome] = []
        var links: [FakeRealtimeLink] = []
        var attempts = 0
    }

    private let state = Mutex(State())

    /// Outcomes for the next connects, in order; once used up, connects open.
    func scriptConnects(_ outcomes: ConnectOutcome...) {
        state.withLock { $0.outcomes.append(contentsOf: outcomes) }
    }

    var attempts: Int { state.withLock { $0.attempts } }
    var links: [FakeRealtimeLink] { state.withLock { $0.links } }
    var current: FakeRealtimeLink? { state.withLock { $0.links.last } }

    func connect() async throws(RealtimeDisconnect) -> any RealtimeLink {
        let outcome = state.withLock { state -> ConnectOutcome in
            state.attempts += 1
            return state.outcomes.isEmpty ? .open : state.outcomes.removeFirst()
        }
        switch outcome {
        case .open:
            let link = FakeRealtimeLink()
            state.withLock { $0.links.append(link) }
            return link
        case .fail(let error):
            throw error
        case .hang:
            let (never, keepOpen) = AsyncStream.makeStream(of: Never.self)
            for await _ in never {}  // ends when the runner abandons the attempt (cancels this task)
            keepOpen.finish()
            throw RealtimeDisconnect(kind: .closedByClient, reason: .clientClosed)
        }
    }
}

final class FakeRealtimeLink: RealtimeLink {
    private enum Frame: Sendable {
        case event(RealtimeLinkEvent)
        case end(RealtimeDisconnect)
    }
    private let frames: AsyncStream<Frame>
    private let continuation: AsyncStream<Frame>.Continuation
    private let state = Mutex((sent: [String](), closedByClient: false, gone: false, decoder: ServerEventDecoder()))

    init() {
        (frames, continuation) = AsyncStream.makeStream(of: Frame.self)
    }

    func run(deliver: @escaping @Sendable (RealtimeLinkEvent) -> Void) async -> RealtimeDisconnect {
        for await frame in frames {
            switch frame {
            case .event(let event): deliver(event)
            case .end(let end): return end
            }
        }
        return RealtimeDisconnect(kind: .closedByClient, reason: .clientClosed)
    }

    func send(_ text: String) async throws(RealtimeSendError) {
        let gone = state.withLock { state -> Bool in
            if state.gone { return true }
            state.sent.append(text)
            return false
        }
        if gone { throw RealtimeSendError(reason: "socket closed") }
    }

    func close() {
        state.withLock {
            $0.closedByClient = true
            $0.gone = true
        }
        continuation.finish()
    }

    // MARK: server side

    /// One server frame (JSON text), decoded like the real connection does.
    func serverSends(_ text: String) {
        let event = state.withLock { $0.decoder.decode(text) }
        switch event {
        case .success(let decoded): continuation.yield(.event(.server(decoded)))
        case .failure(let error): continuation.yield(.event(.undecodable("\(error)")))
        }
    }

    /// The server or network drops the socket.
    func drop(_ end: RealtimeDisconnect = RealtimeDisconnect(kind: .transient, reason: .connectionLost)) {
        state.withLock { $0.gone = true }
        continuation.yield(.end(end))
        continuation.finish()
    }

    // MARK: observations

    var closedByClient: Bool { state.withLock { $0.closedByClient } }
    var sentTexts: [String] { state.withLock { $0.sent } }
    var sent: [JSONValue] { sentTexts.compactMap(JSONValue.parse) }
    var sentTypes: [String] { sent.compactMap { $0["type"]?.stringValue } }
    /// Client events other than audio appends.
    var sentControlTypes: [String] { sentTypes.filter { $0 != "input_audio_buffer.append" } }

    func sent(ofType type: String) -> [JSONValue] { sent.filter { $0["type"]?.stringValue == type } }

    /// All audio the client appended, decoded.
    var appendedAudio: [Int16] {
        sent(ofType: "input_audio_buffer.append").flatMap { Base64.decodeSamples($0["audio"]?.stringValue ?? "") ?? [] }
    }

    var appendFrameSizes: [Int] {
        sent(ofType: "input_audio_buffer.append").map { (Base64.decodeSamples($0["audio"]?.stringValue ?? "") ?? []).count }
    }
}

extension JSONValue {
    subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }
}

import AudioCore
import Realtime

@testable import Conversation

/// Drives a `ConversationEngine` with a manual clock and keeps every effect it produced.
struct EngineHarness {
    var engine: ConversationEngine
    var now = EngineTime.zero
    var last: [ConversationEffect] = []

    /// What the service's media tools declare: they answer at once.
    static let mediaQuietTools = ToolRegistry(MediaTools.make(player: FakeMediaPlayer(), ducking: MediaDuckingControl())).quietToolNames

    init(configuration: ConversationConfiguration = .init(tools: [AskJarvisTool.definition.functionTool], quietTools: mediaQuietTools)) {
        engine = ConversationEngine(configuration: configuration)
    }

    var state: ConversationState { engine.state }

    @discardableResult
    mutating func handle(_ event: ConversationEvent, after milliseconds: Int64 = 0) -> [ConversationEffect] {
        now = EngineTime(milliseconds: now.milliseconds + milliseconds)
        last = engine.handle(event, at: now)
        return last
    }

    mutating func advance(_ milliseconds: Int64) {
        now = EngineTime(milliseconds: now.milliseconds + milliseconds)
    }

    @discardableResult
    mutating func server(_ event: ServerEvent, after milliseconds: Int64 = 0) -> [ConversationEffect] {
        handle(.server(event), after: milliseconds)
    }

    /// Advances the clock to the earliest armed timer and fires it.
    @discardableResult
    mutating func fireNextTimer() -> TimerID? {
        guard let (id, deadline) = engine.armedTimers.min(by: { $0.value < $1.value }) else { return nil }
        now = max(now, deadline)
        last = engine.handle(.timerFired(id), at: now)
        return id
    }

    mutating func fire(_ id: TimerID) {
        guard let deadline = engine.armedTimers[id] else { return }
        now = max(now, deadline)
        last = engine.handle(.timerFired(id), at: now)
    }

    /// Starts a hands-free conversation and brings it to `listening`.
    mutating func startHandsFree() {
        handle(.button(.tap(pressedAt: now)))
        handle(.realtimeConnected, after: 150)
        server(.sessionCreated(SessionInfo(id: "sess_1", model: RealtimeModels.defaultID)), after: 50)
    }

    static func sent(_ effects: [ConversationEffect]) -> [ClientEvent] {
        effects.compactMap { if case .send(let event) = $0 { event } else { nil } }
    }

    var lastSent: [ClientEvent] { Self.sent(last) }

    static func audio(samples: Int) -> String { Base64.encode(samples: [Int16](repeating: 0, count: samples)) }

    static func delta(_ responseID: String, _ itemID: String, samples: Int) -> ServerEvent {
        .outputAudioDelta(AudioDelta(responseID: responseID, itemID: itemID, delta: audio(samples: samples)))
    }

    static func usage(inAudio: Int = 0, inText: Int = 0, outAudio: Int = 0, outText: Int = 0) -> Usage {
        Usage(inputText: inText, inputAudio: inAudio, outputText: outText, outputAudio: outAudio)
    }
}

extension Array where Element == ConversationEffect {
    func contains(earcon: Earcon) -> Bool { contains(.playEarcon(earcon)) }
    var sentEvents: [ClientEvent] { EngineHarness.sent(self) }
    var toolCalls: [(String, String, String)] {
        compactMap { if case .callTool(let id, let name, let args) = $0 { (id, name, args) } else { nil } }
    }
}

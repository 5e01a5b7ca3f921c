import AudioCore
import Logging
import Realtime
import TestSupport

@testable import Conversation

/// The runner with the media tools over a fake player, talking to the Realtime stand-in over loopback.
struct MediaLoopback {
    let h: RunnerHarness
    let realtime: RealtimeStandIn
    let player: FakeMediaPlayer

    /// - Parameters:
    ///   - calls: the function calls the stand-in's model makes in one turn, in order.
    ///   - answerAudio: what it says afterwards (24 kHz).
    static func start(
        calls: [ScriptedFunctionCall], answerAudio: [Int16],
        earcons: @escaping @Sendable (Earcon) -> [Int16]? = RunnerHarness.testEarcons
    ) async throws -> MediaLoopback {
        var script = RealtimeStandInScript()
        script.functionCalls = calls
        script.answerAudio = answerAudio
        let realtime = try await RealtimeStandIn.start(script: script)
        let player = FakeMediaPlayer()
        let ducking = MediaDuckingControl()
        let tools = ToolRegistry(MediaTools.make(player: player, ducking: ducking))
        let connection = RealtimeConnectionConfiguration(
            url: realtime.url, model: RealtimeModels.defaultID, apiKey: RealtimeAPIKey(script.apiKey),
            connectTimeout: .seconds(10), closeTimeout: .milliseconds(500))
        let h = try RunnerHarness(
            transport: WebSocketRealtimeTransport(configuration: connection), tools: tools, jarvis: nil,
            engine: RunnerHarness.fastEngine(tools: tools.functionTools), ducking: ducking, earcons: earcons)
        h.start()
        return MediaLoopback(h: h, realtime: realtime, player: player)
    }

    func stop() async throws {
        try await h.stop()
        await realtime.shutdown()
    }
}

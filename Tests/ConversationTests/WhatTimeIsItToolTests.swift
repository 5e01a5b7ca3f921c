import Basics
import Realtime
import TestProcess
import Testing

@testable import Conversation

/// A local tool added as one file plus one registration line: the model's call is answered on the device
/// from an injected clock, in the owner's local time, without Jarvis and without the "thinking" earcon.
@Suite(.timeLimit(.minutes(3))) struct WhatTimeIsItToolTests {
    /// 2026-11-18 11:06:40 UTC.
    static let instant: Int64 = 1_795_000_000
    static let berlin = LocalTime(epochSeconds: instant, utcOffsetSeconds: 3600, zoneName: "CET")

    @Test func localTimeFromUnixSecondsAndOffset() {
        let t = Self.berlin
        #expect((t.year, t.month, t.day, t.hour, t.minute, t.second) == (2026, 11, 18, 12, 6, 40))
        #expect(t.weekdayName == "Wednesday" && t.date == "2026-11-18" && t.time == "12:06" && t.utcOffset == "+01:00")
        let newYork = LocalTime(epochSeconds: Self.instant, utcOffsetSeconds: -5 * 3600, zoneName: "EST")
        #expect(newYork.time == "06:06" && newYork.utcOffset == "-05:00" && newYork.weekdayName == "Wednesday")
        let leapDay = LocalTime(epochSeconds: 1_709_211_600, utcOffsetSeconds: 3600, zoneName: "")
        #expect(leapDay.date == "2024-02-29" && leapDay.time == "14:00" && leapDay.weekdayName == "Thursday")
        let beforeEpoch = LocalTime(epochSeconds: -1, utcOffsetSeconds: 0, zoneName: "UTC")
        #expect(beforeEpoch.date == "1969-12-31" && beforeEpoch.time == "23:59" && beforeEpoch.second == 59)
        #expect(beforeEpoch.weekdayName == "Wednesday")
        let india = LocalTime(epochSeconds: 0, utcOffsetSeconds: 19_800, zoneName: "IST")
        #expect(india.time == "05:30" && india.utcOffset == "+05:30")
    }

    @Test func describesItselfAsAQuickLocalTool() {
        let registry = ToolRegistry([AskJarvisTool(jarvis: ScriptedJarvis()), WhatTimeIsItTool(now: { Self.berlin })])
        #expect(registry.quietToolNames == ["what_time_is_it"])
        #expect(registry.instructions(modelSpeaksPreambles: true).contains("- what_time_is_it: Tells the current local time"))
        #expect(registry.functionTools.map(\.name) == ["ask_jarvis", "what_time_is_it"])
    }

    @Test func noThinkingEarconForALocalAnswer() {
        var configuration = ConversationConfiguration()
        configuration.use(ToolRegistry([AskJarvisTool(jarvis: ScriptedJarvis()), WhatTimeIsItTool(now: { Self.berlin })]))
        var h = EngineHarness(configuration: configuration)
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 300, itemID: "U1"), after: 300)
        h.server(.speechStopped(audioEndMs: 1500, itemID: "U1"), after: 1200)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")), after: 100)
        h.server(.functionCallArgumentsDone(FunctionCall(responseID: "R1", itemID: "F1", callID: "c1", name: "what_time_is_it", arguments: "{}")))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 50)
        #expect(h.last.toolCalls.map(\.1) == ["what_time_is_it"])
        #expect(!h.last.contains(earcon: .thinking), "a quick local tool: no thinking earcon")
    }

    @Test func theModelsCallGetsTheLocalAnswerWithoutJarvis() async throws {
        let transport = FakeRealtimeTransport()
        let jarvis = ScriptedJarvis()
        let tools = ToolRegistry([AskJarvisTool(jarvis: jarvis), WhatTimeIsItTool(now: { Self.berlin })])
        var engine = RunnerHarness.fastEngine()
        engine.use(tools)
        let h = try RunnerHarness(transport: transport, tools: tools, jarvis: jarvis, engine: engine)
        h.start()
        h.startPlayback(speed: 8)
        let base = ConversationRunnerTests()
        let link = try await base.connect(ConversationRunnerTests.Setup(h: h, transport: transport, jarvis: jarvis))
        let update = try #require(link.sent(ofType: "session.update").first)
        #expect(
            update["session"]?["instructions"]?.stringValue == tools.instructions(modelSpeaksPreambles: engine.model.reasons),
            "the prompt comes from the registry")

        await base.userTurn(link, "U1", h)
        link.serverSends(ServerFrames.responseCreated("R1"))
        for frame in ServerFrames.toolCall("R1", callID: "call_time", name: "what_time_is_it") { link.serverSends(frame) }
        #expect(await waitUntil { !link.sent(ofType: "conversation.item.create").isEmpty })
        let item = try #require(link.sent(ofType: "conversation.item.create").last?["item"])
        #expect(item["type"] == "function_call_output" && item["call_id"] == "call_time")
        let answer = try #require(item["output"]?.stringValue.flatMap(JSONValue.parse))
        #expect(answer == ["time": "12:06", "weekday": "Wednesday", "date": "2026-11-18", "time_zone": "CET", "utc_offset": "+01:00"])
        #expect(await waitUntil { link.sentControlTypes.last == "response.create" })
        base.answer(link, response: "R2", milliseconds: 200, chunks: 2)
        await h.waitForState(.listening)
        #expect(await jarvis.questions.isEmpty, "answered on the device, Jarvis never asked")
        try await h.stop()
    }
}

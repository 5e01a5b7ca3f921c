import Glibc
import TestProcess
import TestSupport
import Testing

/// What the owner reads in `journalctl -u jarvis-voice` while nothing happens: at the default level the
/// start, ready and device lines, then nothing (the chain's figures each minute are at debug).
@Suite struct QuietJournalTests {
    /// What an idle start may say, once each.
    static let startLines = [
        "<5>jarvis-voice: starting with ", "<6>control: control socket listening on ", "<6>jarvis-voice: button disabled ",
        "<5>service: ready: ", "<6>conversation: conversation runner started", "<5>service: waiting for ",
        "<5>audio: capture device idle_mic opened: ", "<5>audio: playback device idle_speaker opened: ", "<5>service: audio running: "
    ]

    @Test func anIdleServiceIsQuietAtTheDefaultLevel() async throws {
        let dir = TemporaryDirectory()
        let realtime = try await RealtimeStandIn.start(script: RealtimeStandInScript())
        let jarvis = try await TermLLMStandIn.start()
        let service = try ServiceUnderTest.start(in: dir, name: "idle", realtime: realtime, jarvis: jarvis, logLevel: "info")
        defer { _ = service.process.signal(SIGKILL) }
        try #require(try await service.ctlWhenReady("status"), "log:\n\(service.logText)")
        try await service.playOn(milliseconds: 65_000)  // past the minute the chain's figures fall due
        let lines = service.logText.split(separator: "\n").map(String.init)
        let unexpected = lines.filter { line in !Self.startLines.contains { line.hasPrefix($0) } }
        #expect(unexpected.isEmpty, "an idle minute at the default level said more than its start:\n\(service.logText)")
        #expect(lines.count <= Self.startLines.count, "\(service.logText)")
        await service.stop()
        await realtime.shutdown()
        await jarvis.stop()
    }
}

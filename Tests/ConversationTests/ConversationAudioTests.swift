import AudioCore
import Basics
import Glibc
import Realtime
import TestProcess
import Testing

@testable import Conversation

/// The audio side without a runner: uplink pre-roll and framing, played counts from the mixer's playhead.
@Suite struct ConversationAudioTests {
    func ramp(_ count: Int, from start: Int = 0) -> [Int16] { (0..<count).map { Int16(truncatingIfNeeded: start + $0) } }

    func decoded(_ frames: [String]) -> [[Int16]] {
        frames.map { Base64.decodeSamples(JSONValue.parse($0)?["audio"]?.stringValue ?? "") ?? [] }
    }

    @Test func idleKeepsOnlyTheRecentHistoryAndCaptureStartsAtThePress() {
        var uplink = UplinkBuffer(configuration: UplinkConfiguration(chunkMilliseconds: 20, idleHistory: .milliseconds(500)))
        let audio = ramp(24 * 2_000)  // 2 s before anything happens
        audio.withUnsafeBufferPointer { uplink.append($0) }
        #expect(uplink.bufferedSamples == 24 * 500)
        // The press was 300 ms ago (the tap is reported at release).
        uplink.capture(since: EngineTime(milliseconds: 1_700), now: EngineTime(milliseconds: 2_000))
        #expect(uplink.bufferedSamples == 24 * 300)
        #expect(uplink.readyFrames().isEmpty, "nothing goes out before streaming")
        let frames = decoded(uplink.stream())
        #expect(frames.count == 15)
        #expect(frames.allSatisfy { $0.count == 480 })
        #expect(frames.first?.first == Int16(truncatingIfNeeded: 24 * 1_700), "pre-roll starts at the press")
    }

    @Test func stopFlushesThePartialFrameAndCapturingWithoutStreamingDiscards() {
        var uplink = UplinkBuffer(configuration: UplinkConfiguration(chunkMilliseconds: 40))
        uplink.capture(since: .zero, now: .zero)
        _ = uplink.stream()
        ramp(1_000).withUnsafeBufferPointer { uplink.append($0) }
        #expect(decoded(uplink.readyFrames()).map(\.count) == [960])
        #expect(decoded(uplink.stop()).map(\.count) == [40])
        #expect(uplink.mode == .idle)

        uplink.capture(since: .zero, now: .zero)
        ramp(5_000).withUnsafeBufferPointer { uplink.append($0) }
        #expect(uplink.stop().isEmpty, "never streamed: nothing to send")
    }

    @Test func preRollIsBoundedDroppingTheOldestAudio() {
        var uplink = UplinkBuffer(configuration: UplinkConfiguration(preRollLimit: .seconds(1)))
        uplink.capture(since: .zero, now: .zero)
        ramp(24 * 1_500).withUnsafeBufferPointer { uplink.append($0) }
        #expect(uplink.bufferedSamples == 24_000)
        #expect(uplink.droppedSamples == 12_000)
        let frames = decoded(uplink.stream())
        #expect(frames.first?.first == Int16(truncatingIfNeeded: 12_000))
    }

    @Test func playedSamplesFollowThePlayheadAcrossAFlush() throws {
        let mixer = Mixer(configuration: Mixer.Configuration(format: AudioFormat(sampleRate: 48_000, channels: 2)))
        let delay = Locked(0)
        let audio = try MixerConversationAudio(
            mixer: mixer, captureRing: SPSCRing(capacity: 1_024, zero: 0), deviceDelayFrames: { delay.withLock { $0 } })
        var output = [Int16](repeating: 0, count: 480 * 2)
        func render(_ periods: Int) {
            for _ in 0..<periods { output.withUnsafeMutableBufferPointer { mixer.render(into: $0) } }
        }
        let speech = tone(milliseconds: 1_000, frequency: 440)
        speech.withUnsafeBufferPointer { audio.enqueueVoice($0) }
        #expect(audio.voicePlayedSamples() == 0)
        render(30)  // 300 ms
        #expect(audio.voicePlayedSamples() == 7_200)
        delay.withLock { $0 = 4_800 }  // 100 ms still in the device
        #expect(audio.voicePlayedSamples() == 4_800)

        audio.flushVoice()
        #expect(audio.voicePlayedSamples() == 0)
        // Audio queued before the render thread saw the flush must survive it.
        let next = tone(milliseconds: 200, frequency: 440)
        next.withUnsafeBufferPointer { audio.enqueueVoice($0) }
        render(1)
        audio.pump()
        delay.withLock { $0 = 0 }
        render(30)
        audio.pump()
        render(5)
        #expect(audio.voicePlayedSamples() == next.count, "all of the new speech played and was counted from 0")
    }

    /// On a real device `snd_pcm_delay` never drops to 0 (the buffer is refilled with silence), so
    /// the end of the speech counts as played once the device delay has passed after the last frame.
    @Test func theEndOfSpeechIsPlayedOnceTheDeviceDelayHasPassed() async throws {
        let mixer = Mixer(configuration: Mixer.Configuration(format: AudioFormat(sampleRate: 48_000, channels: 2)))
        let audio = try MixerConversationAudio(
            mixer: mixer, captureRing: SPSCRing(capacity: 1_024, zero: 0), deviceDelayFrames: { 4_800 })
        var output = [Int16](repeating: 0, count: 480 * 2)
        let speech = tone(milliseconds: 200, frequency: 440)
        speech.withUnsafeBufferPointer { audio.enqueueVoice($0) }
        for _ in 0..<40 {
            output.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
            audio.pump()
        }
        #expect(audio.voicePlayedSamples() < speech.count, "100 ms are still in the device")
        let start = ContinuousClock.now
        #expect(await waitUntil { audio.voicePlayedSamples() >= speech.count })
        #expect(audio.voicePlayedSamples() == speech.count)
        #expect(ContinuousClock.now - start >= .milliseconds(100))
    }

    @Test func duckingIsIdempotentAndReleaseRestoresTheCurrentVolume() throws {
        let mixer = Mixer()
        let audio = try MixerConversationAudio(mixer: mixer, captureRing: SPSCRing(capacity: 16, zero: 0))
        audio.duckMedia()
        let ducked = mixer.requestedGain(.media)
        audio.duckMedia()
        #expect(mixer.requestedGain(.media) == ducked && ducked < 0.2)
        audio.setMediaVolume(0.5)
        #expect(abs(mixer.requestedGain(.media) - 0.05) < 0.001)
        audio.releaseMedia()
        #expect(mixer.requestedGain(.media) == 0.5)
        #expect(audio.mediaGain == MediaGainStatus(ducked: false, volume: 0.5))
        audio.releaseMedia()
        #expect(mixer.requestedGain(.media) == 0.5)
    }
}

@Suite struct ConversationRunnerPlumbingTests {
    @Test func reconnectsWithTheRealtimeBackoffByDefault() {
        #expect(ConversationRunnerConfiguration().reconnect == .realtimeReconnect)
    }

    @Test func anIdleRunnerKeepsDrainingTheCaptureRingAndPlaysEarconsFromATable() async throws {
        let transport = FakeRealtimeTransport()
        let jarvis = ScriptedJarvis()
        let h = try RunnerHarness(transport: transport, tools: ToolRegistry([AskJarvisTool(jarvis: jarvis)]), jarvis: jarvis)
        h.start()
        await h.speak(tone(milliseconds: 3_000, frequency: 200))
        #expect(await waitUntil { h.captureRing.availableToRead == 0 }, "the capture side never finds the ring full")
        h.runner.reset()  // long hold in idle: the reset earcon
        #expect(await waitUntil { await jarvis.resets == 1 })
        #expect(await waitUntil { h.mixer.framesQueued(.earcon) > 0 })
        try await h.stop()

        let mixer = Mixer()
        let audio = try MixerConversationAudio(
            mixer: mixer, captureRing: SPSCRing(capacity: 16, zero: 0), earconTable: [.listening: [Int16](repeating: 500, count: 240)])
        audio.playEarcon(.reset)
        #expect(mixer.framesQueued(.earcon) == 0)
        audio.playEarcon(.listening)
        #expect(mixer.framesQueued(.earcon) > 0)
    }
}

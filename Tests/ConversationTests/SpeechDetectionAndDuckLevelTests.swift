import AudioCore
import Glibc
import Realtime
import Testing

@testable import Conversation

/// The uplink's speech gate (for the silent long hold) and `duck_audio`'s level in the ducking.
@Suite struct SpeechDetectionAndDuckLevelTests {
    /// A sine at `dBFS` RMS, 24 kHz.
    func tone(milliseconds: Int, dBFS: Double) -> [Int16] {
        let amplitude = 32_768 * pow(10, dBFS / 20) * 2.0.squareRoot()
        return (0..<(24 * milliseconds)).map { Int16(amplitude * sin(Double($0) * 2 * .pi * 440 / 24_000)) }
    }

    func feed(_ uplink: inout UplinkBuffer, _ samples: [Int16]) {
        samples.withUnsafeBufferPointer { uplink.append($0) }
    }

    @Test func speechIsReportedOncePerCaptureAboveTheThresholdOnly() {
        var uplink = UplinkBuffer(configuration: UplinkConfiguration())  // -40 dBFS, 200 ms
        uplink.capture(since: .zero, now: .zero)
        feed(&uplink, tone(milliseconds: 2_000, dBFS: -46))
        let heard1 = uplink.takeSpeechDetected()
        #expect(!heard1, "room noise under the threshold")
        feed(&uplink, tone(milliseconds: 180, dBFS: -30))
        let heard2 = uplink.takeSpeechDetected()
        #expect(!heard2, "180 ms is not enough")
        feed(&uplink, tone(milliseconds: 40, dBFS: -30))
        let heard3 = uplink.takeSpeechDetected()
        #expect(heard3)
        feed(&uplink, tone(milliseconds: 500, dBFS: -30))
        let heard4 = uplink.takeSpeechDetected()
        #expect(!heard4, "once per capture")
        _ = uplink.stop()
        let heard5 = uplink.takeSpeechDetected()
        #expect(!heard5)
        uplink.capture(since: EngineTime(milliseconds: 10_000), now: EngineTime(milliseconds: 10_000))
        feed(&uplink, tone(milliseconds: 300, dBFS: -34))
        let heard6 = uplink.takeSpeechDetected()
        #expect(heard6, "a new capture reports again")
    }

    @Test func speechInThePreRollCounts() {
        var uplink = UplinkBuffer(configuration: UplinkConfiguration())
        feed(&uplink, tone(milliseconds: 400, dBFS: -25))  // said before the hold was recognised
        let heard7 = uplink.takeSpeechDetected()
        #expect(!heard7, "nothing is reported while idle")
        uplink.capture(since: EngineTime(milliseconds: 600), now: EngineTime(milliseconds: 1_000))
        let heard8 = uplink.takeSpeechDetected()
        #expect(heard8)
    }

    @Test func duckLevelIsAbsoluteAndForgottenOnRelease() throws {
        let mixer = Mixer()
        let audio = try MixerConversationAudio(mixer: mixer, captureRing: SPSCRing(capacity: 16, zero: 0))
        audio.setMediaVolume(0.5)
        audio.duckMedia()
        #expect(abs(mixer.requestedGain(.media) - 0.05) < 0.001, "the configured -20 dB")
        audio.setDuckLevel(0.6)
        #expect(abs(mixer.requestedGain(.media) - 0.3) < 0.001)
        audio.setDuckLevel(0.6)
        audio.duckMedia()
        #expect(abs(mixer.requestedGain(.media) - 0.3) < 0.001, "never compounding")
        audio.setMediaVolume(0.8)
        #expect(abs(mixer.requestedGain(.media) - 0.48) < 0.001, "relative to the current volume")
        audio.releaseMedia()
        #expect(mixer.requestedGain(.media) == 0.8)
        audio.duckMedia()
        #expect(abs(mixer.requestedGain(.media) - 0.08) < 0.001, "the next conversation ducks to the configured depth again")
        audio.releaseMedia()
    }

    @Test func duckerLevelWhileNotDuckedAppliesAtTheNextDuck() {
        var ducker = Ducker(volume: 1)
        #expect(ducker.setDuckLevel(0.5) == nil)
        #expect(ducker.duck() == GainChange(gain: 0.5, milliseconds: 100))
        #expect(ducker.setDuckLevel(nil) != nil)
        #expect(abs(ducker.gain - 0.1) < 0.001)
    }
}

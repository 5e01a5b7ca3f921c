import EchoControl
import Glibc
import Testing

@Suite struct IdleCaptureGateTests {
    /// A 16 ms frame of a 440 Hz sine at `dBFS` RMS.
    static func frame(dBFS: Double) -> [Int16] {
        let amplitude = 32_767 * pow(10, dBFS / 20) * 2.0.squareRoot()
        return (0..<256).map { Int16(amplitude * sin(Double($0) * 2 * .pi * 440 / 16_000)) }
    }

    func active(_ dBFS: Double, gain: Int, mayBeRaised: Bool) -> Bool {
        var gate = IdleCaptureGate(frameMilliseconds: 16)
        Self.frame(dBFS: dBFS).withUnsafeBufferPointer { gate.observe(reference: $0, gain: gain, mayBeRaised: mayBeRaised) }
        return gate.farEndActive
    }

    /// A loopback reference 20-30 dB under its echo (the ReSpeaker's) carries a quiet voice at about -52 dBFS:
    /// under the far-end threshold as it comes, so before the chain has learnt to raise it the chain must run
    /// anyway, or it never learns.
    @Test func aQuietReferenceRunsTheChainUntilItsLevelIsLearnt() {
        #expect(active(-52, gain: 1, mayBeRaised: true))
        #expect(!active(-52, gain: 1, mayBeRaised: false))
        #expect(active(-52, gain: 8, mayBeRaised: false), "raised 18 dB it is far-end sound")
        #expect(active(-40, gain: 1, mayBeRaised: false))
    }

    @Test func hissUnderSixtyDecibelsIsSilenceHoweverItMayBeRaised() {
        #expect(!active(-64, gain: 1, mayBeRaised: true))
        #expect(!active(-64, gain: 16, mayBeRaised: false))
    }
}

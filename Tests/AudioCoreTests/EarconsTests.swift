import AudioCore
import Testing

@Suite struct EarconsTests {
    static let format = AudioFormat(sampleRate: 48_000, channels: 2)
    /// Rendered once for the whole suite (as the service does at start-up).
    static let shared = Earcons(format: EarconsTests.format)
    var earcons: Earcons { Self.shared }

    func mono(_ earcon: Earcon) -> [Int16] {
        let samples = earcons[earcon]
        return stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
    }

    @Test(arguments: Earcon.allCases)
    func durationAndChannels(_ earcon: Earcon) {
        let samples = earcons[earcon]
        #expect(samples.count % 2 == 0)
        let ms = Double(samples.count / 2) * 1000 / 48_000
        #expect(ms >= 80 && ms <= 400, "\(earcon): \(ms) ms")
        #expect(abs(ms - earcon.durationMs) < 1)
        for frame in stride(from: 0, to: samples.count, by: 2) where samples[frame] != samples[frame + 1] {
            Issue.record("\(earcon): channels differ at frame \(frame / 2)")
            break
        }
    }

    @Test(arguments: Earcon.allCases)
    func peakIsMinus12dBFS(_ earcon: Earcon) {
        let peak = earcons[earcon].map { abs(Int($0)) }.max() ?? 0
        let dBFS = Decibels.dBFS(Float(peak))
        #expect(abs(dBFS - -12) < 0.1, "\(earcon): \(dBFS) dBFS")
    }

    /// No clicks: silence at both ends and no jump bigger than a smooth waveform can make.
    @Test(arguments: Earcon.allCases)
    func noDiscontinuities(_ earcon: Earcon) {
        let samples = mono(earcon)
        let peak = Double(samples.map { abs(Int($0)) }.max() ?? 1)
        #expect(abs(Int(samples.first ?? 0)) <= 2)
        #expect(abs(Int(samples.last ?? 0)) <= 2)
        var maxStep = 0
        for i in 1..<samples.count { maxStep = max(maxStep, abs(Int(samples[i]) - Int(samples[i - 1]))) }
        // A full-scale click would be ~peak; a sine at f moves at most 2*pi*f/fs*peak per sample.
        let highest = earcon.notes.map(\.frequency).max() ?? 0
        let bound = peak * 2 * Double.pi * highest / 48_000 * 2.0
        #expect(Double(maxStep) <= bound, "\(earcon): step \(maxStep) > \(bound)")
        #expect(Double(maxStep) < peak * 0.35)
    }

    /// Dominant frequency near `atMs` by zero crossings over a 30 ms window.
    func pitch(_ earcon: Earcon, atMs: Double) -> Double {
        let samples = mono(earcon)
        let start = Int(atMs * 48)
        let window = samples[start..<min(samples.count, start + 30 * 48)]
        var crossings = 0
        var previous = window.first ?? 0
        for sample in window.dropFirst() {
            if (previous < 0) != (sample < 0) { crossings += 1 }
            previous = sample
        }
        return Double(crossings) / 2 / (Double(window.count) / 48_000)
    }

    @Test func pitchContoursDiffer() {
        let listening = (pitch(.listening, atMs: 20), pitch(.listening, atMs: 150))
        let done = (pitch(.done, atMs: 20), pitch(.done, atMs: 180))
        #expect(listening.1 > listening.0 * 1.2, "listening rises: \(listening)")
        #expect(done.1 < done.0 / 1.2, "done falls: \(done)")
        #expect(abs(listening.0 - 659) < 60 && abs(listening.1 - 880) < 60)
        #expect(pitch(.error, atMs: 30) < 300, "error is low")
        #expect(pitch(.offline, atMs: 20) > pitch(.offline, atMs: 260) * 1.3, "offline descends")
        #expect(pitch(.reset, atMs: 220) > pitch(.reset, atMs: 10) * 1.7, "reset climbs an octave")
        let thinking = (pitch(.thinking, atMs: 15), pitch(.thinking, atMs: 120))
        #expect(abs(thinking.0 - thinking.1) < 60, "thinking stays on one pitch: \(thinking)")
        // Pairwise different sounds.
        let all = Earcon.allCases.map { earcons[$0] }
        for i in 0..<all.count { for j in (i + 1)..<all.count { #expect(all[i] != all[j]) } }
    }

    @Test func renderedAtOtherFormats() {
        let mono16k = Earcons(format: AudioFormat(sampleRate: 16_000, channels: 1))
        #expect(mono16k[.listening].count == Int((Earcon.listening.durationMs * 16).rounded(.up)))
        #expect(Earcons.render(.error, format: AudioFormat(sampleRate: 24_000, channels: 1), peakDBFS: -6).map { abs(Int($0)) }.max()! > 16_000)
    }
}

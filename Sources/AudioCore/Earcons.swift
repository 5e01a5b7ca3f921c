import Glibc

/// The short cues the appliance plays on the earcon channel.
public enum Earcon: String, Sendable, CaseIterable {
    /// A conversation starts (rising two notes).
    case listening
    /// A request went to Jarvis (two soft same-pitch blips).
    case thinking
    /// The conversation ended (falling two notes).
    case done
    /// Something failed (low double tone).
    case error
    /// Jarvis or the Realtime API is unreachable (slow descending three notes).
    case offline
    /// The Jarvis session was forgotten (quick rising arpeggio).
    case reset
    /// The OpenAI account is out of credit: nothing will answer until the owner adds some (three low,
    /// evenly spaced notes on one pitch, then a lower one: unlike any other cue).
    case outOfCredit
    /// The microphone was muted, or a tap found it muted (a low falling fourth).
    case microphoneOff
    /// The microphone is on again (the same fourth, rising).
    case microphoneOn
    /// A timer or alarm is ringing: a bright rising chime, repeated until stopped.
    case timer

    /// One note: a fundamental with a few soft harmonics under an attack/decay/release envelope.
    public struct Note: Sendable, Equatable {
        public var frequency: Double
        /// Start, from the beginning of the earcon.
        public var startMs: Double
        public var durationMs: Double
        /// Relative loudness before the earcon is normalised to its peak level.
        public var gain: Double
    }

    /// The score. Pitches are equal-tempered (A4 = 440 Hz).
    public var notes: [Note] {
        func n(_ f: Double, _ start: Double, _ duration: Double, _ gain: Double = 1) -> Note {
            Note(frequency: f, startMs: start, durationMs: duration, gain: gain)
        }
        switch self {
        case .listening: return [n(659.26, 0, 110), n(880.00, 90, 130)]  // E5 -> A5
        case .thinking: return [n(587.33, 0, 70, 0.8), n(587.33, 110, 70, 0.8)]  // D5 D5
        case .done: return [n(880.00, 0, 110), n(659.26, 90, 150)]  // A5 -> E5
        case .error: return [n(220.00, 0, 120), n(207.65, 170, 150)]  // A3 G#3
        case .offline: return [n(392.00, 0, 120), n(329.63, 120, 120), n(261.63, 240, 160)]  // G4 E4 C4
        case .outOfCredit: return [n(293.66, 0, 70), n(293.66, 95, 70), n(293.66, 190, 70), n(196.00, 280, 110)]  // D4 D4 D4 G3
        case .microphoneOff: return [n(440.00, 0, 90), n(329.63, 80, 170)]  // A4 -> E4
        case .microphoneOn: return [n(329.63, 0, 90), n(440.00, 80, 170)]  // E4 -> A4
        case .timer: return [n(1046.50, 0, 90), n(1318.51, 100, 90), n(1567.98, 200, 180)]  // C6 E6 G6
        case .reset: return [n(523.25, 0, 80), n(659.26, 60, 80), n(783.99, 120, 80), n(1046.50, 180, 140)]  // C5 E5 G5 C6
        }
    }

    /// Length of the whole cue.
    public var durationMs: Double { notes.map { $0.startMs + $0.durationMs }.max() ?? 0 }
}

/// All earcons rendered once (at start-up) at the playback format: interleaved Int16, the same
/// signal on every channel, peak at `peakDBFS`, starting and ending at silence.
public struct Earcons: Sendable {
    public let format: AudioFormat
    private let rendered: [Earcon: [Int16]]

    /// -12 dBFS: clearly audible over a quiet kitchen, well under speech level.
    public static let defaultPeakDBFS = -12.0

    public init(format: AudioFormat, peakDBFS: Double = Earcons.defaultPeakDBFS) {
        self.format = format
        var rendered: [Earcon: [Int16]] = [:]
        for earcon in Earcon.allCases {
            rendered[earcon] = Self.render(earcon, format: format, peakDBFS: peakDBFS)
        }
        self.rendered = rendered
    }

    /// Interleaved samples of `earcon`.
    public subscript(_ earcon: Earcon) -> [Int16] { rendered[earcon] ?? [] }

    /// Harmonic weights: a mellow, slightly hollow timbre (between a sine and a triangle).
    static let partials: [(harmonic: Double, weight: Double)] = [(1, 1.0), (2, 0.22), (3, 0.08)]
    static let attackMs = 8.0
    static let releaseMs = 30.0

    /// Renders one earcon.
    public static func render(_ earcon: Earcon, format: AudioFormat, peakDBFS: Double = Earcons.defaultPeakDBFS) -> [Int16] {
        let rate = Double(format.sampleRate)
        let frames = Int((earcon.durationMs * rate / 1000).rounded(.up))
        var mono = [Double](repeating: 0, count: frames)
        for note in earcon.notes {
            let start = Int((note.startMs * rate / 1000).rounded())
            let length = min(Int((note.durationMs * rate / 1000).rounded()), frames - start)
            guard length > 1 else { continue }
            let attack = max(1, min(length / 3, Int(attackMs * rate / 1000)))
            let release = max(1, min(length / 2, Int(releaseMs * rate / 1000)))
            for i in 0..<length {
                let t = Double(i) / rate
                var value = 0.0
                for partial in partials where note.frequency * partial.harmonic < rate / 2 {
                    value += partial.weight * sin(2 * Double.pi * note.frequency * partial.harmonic * t)
                }
                mono[start + i] += note.gain * envelope(i, length: length, attack: attack, release: release) * value
            }
        }
        let peak = mono.reduce(0) { max($0, abs($1)) }
        let target = 32768 * pow(10, peakDBFS / 20)
        let scale = peak > 0 ? target / peak : 0
        var samples = [Int16](repeating: 0, count: frames * format.channels)
        for frame in 0..<frames {
            let value = Int16(clamping: Int((mono[frame] * scale).rounded()))
            for channel in 0..<format.channels { samples[frame * format.channels + channel] = value }
        }
        return samples
    }

    /// Raised-cosine attack, a gentle exponential decay, raised-cosine release to exactly zero:
    /// continuous in value and slope at both ends, so no clicks.
    static func envelope(_ i: Int, length: Int, attack: Int, release: Int) -> Double {
        let position = Double(i) / Double(length)
        var gain = exp(-1.5 * position)
        if i < attack {
            gain *= 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(attack))
        }
        let fromEnd = length - 1 - i
        if fromEnd < release {
            gain *= 0.5 - 0.5 * cos(Double.pi * Double(fromEnd) / Double(release))
        }
        return gain
    }
}

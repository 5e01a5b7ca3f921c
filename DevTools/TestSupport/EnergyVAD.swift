/// A simple energy voice activity detector over 24 kHz PCM16 in 20 ms windows: speech starts after
/// `startMs` of windows above the RMS threshold and stops after `silenceMs` below it. Good enough to turn
/// generated speech (tones, espeak-ng) into the server's speech_started/speech_stopped events.
struct EnergyVAD: Sendable {
    enum Transition: Equatable {
        case started(audioStartMs: Int)
        case stopped(audioEndMs: Int)
    }

    static let windowSamples = 480

    var thresholdRMS: Double
    var startMs: Int
    var silenceMs: Int
    private(set) var inSpeech = false
    private var windowSumSquares = 0.0
    private var windowCount = 0
    private var windowsSeen = 0
    private var speechRun = 0
    private var silenceRun = 0

    init(thresholdRMS: Double, startMs: Int, silenceMs: Int) {
        self.thresholdRMS = thresholdRMS
        self.startMs = startMs
        self.silenceMs = silenceMs
    }

    mutating func feed(_ samples: [Int16]) -> [Transition] {
        var transitions: [Transition] = []
        for sample in samples {
            let value = Double(sample)
            windowSumSquares += value * value
            windowCount += 1
            if windowCount == Self.windowSamples {
                if let transition = endWindow() { transitions.append(transition) }
            }
        }
        return transitions
    }

    private mutating func endWindow() -> Transition? {
        let rms = (windowSumSquares / Double(windowCount)).squareRoot()
        windowSumSquares = 0
        windowCount = 0
        windowsSeen += 1
        let loud = rms >= thresholdRMS
        let windowMs = 20
        if !inSpeech {
            speechRun = loud ? speechRun + 1 : 0
            if speechRun * windowMs >= startMs {
                inSpeech = true
                silenceRun = 0
                return .started(audioStartMs: (windowsSeen - speechRun) * windowMs)
            }
        } else {
            silenceRun = loud ? 0 : silenceRun + 1
            if silenceRun * windowMs >= silenceMs {
                inSpeech = false
                speechRun = 0
                return .stopped(audioEndMs: (windowsSeen - silenceRun) * windowMs)
            }
        }
        return nil
    }

    mutating func reset() {
        inSpeech = false
        speechRun = 0
        silenceRun = 0
    }
}

import AudioCore
import Basics

/// Did the microphone hear speech? A plain level gate over 20 ms blocks of the uplink's 24 kHz audio (after
/// echo cancellation and noise suppression): speech is at least `minimum` worth of blocks (not necessarily
/// contiguous) whose RMS reaches `thresholdDBFS`. Used to tell a long push-to-talk request from a silent
/// long hold (the reset gesture). Allocation-free.
struct SpeechActivityDetector {
    static let blockSamples = AudioFormat.realtime.sampleRate / 50

    let thresholdSquare: Double
    let minimumBlocks: Int
    private var sumOfSquares = 0.0
    private var blockFill = 0
    private var loudBlocks = 0

    /// Speech was heard since the last `reset()`.
    private(set) var heard = false

    init(thresholdDBFS: Float, minimum: Duration) {
        let rms = 32_768 * Double(Decibels.gain(thresholdDBFS))
        thresholdSquare = rms * rms
        minimumBlocks = max(1, Int(minimum.wholeMilliseconds / 20))
    }

    mutating func reset() {
        sumOfSquares = 0
        blockFill = 0
        loudBlocks = 0
        heard = false
    }

    mutating func feed(_ samples: UnsafeBufferPointer<Int16>) {
        for sample in samples { feed(sample) }
    }

    mutating func feed(_ sample: Int16) {
        let value = Double(sample)
        sumOfSquares += value * value
        blockFill += 1
        guard blockFill == Self.blockSamples else { return }
        if sumOfSquares / Double(Self.blockSamples) >= thresholdSquare {
            loudBlocks += 1
            if loudBlocks >= minimumBlocks { heard = true }
        }
        sumOfSquares = 0
        blockFill = 0
    }
}

/// RMS and peak level in dBFS (full scale = 32768, see `Decibels.dBFS`) over fixed windows of frames,
/// across all channels of interleaved Int16 audio.
///
/// Feed any buffer sizes with `process`; each time `windowFrames` frames have been seen, the window's
/// levels are published in `rmsDBFS`/`peakDBFS` and `windows` increments. No storage; realtime-safe.
public struct LevelMeter: Sendable {
    public let windowFrames: Int
    public let channels: Int
    /// Levels of the last complete window (`Decibels.floor` before the first).
    public private(set) var rmsDBFS: Float = Decibels.floor
    public private(set) var peakDBFS: Float = Decibels.floor
    /// Completed windows so far.
    public private(set) var windows = 0

    private var sumOfSquares: Double = 0
    private var peak: Int32 = 0
    private var framesInWindow = 0

    public init(windowFrames: Int, channels: Int) {
        precondition(windowFrames > 0 && channels > 0, "LevelMeter needs a positive window and channel count")
        self.windowFrames = windowFrames
        self.channels = channels
    }

    public init(format: AudioFormat, windowMilliseconds: Int) {
        self.init(windowFrames: max(1, format.frames(milliseconds: windowMilliseconds)), channels: format.channels)
    }

    public mutating func process(_ samples: UnsafeBufferPointer<Int16>) {
        var i = 0
        let frames = samples.count / channels
        for _ in 0..<frames {
            for _ in 0..<channels {
                let s = Int32(samples[i])
                sumOfSquares += Double(s * s)
                peak = max(peak, abs(s))
                i += 1
            }
            framesInWindow += 1
            if framesInWindow == windowFrames {
                let rms = (sumOfSquares / Double(windowFrames * channels)).squareRoot()
                rmsDBFS = Decibels.dBFS(Float(rms))
                peakDBFS = Decibels.dBFS(Float(peak))
                windows += 1
                sumOfSquares = 0
                peak = 0
                framesInWindow = 0
            }
        }
    }

    /// RMS in dBFS of a whole buffer (tests, logs).
    public static func rmsDBFS(_ samples: UnsafeBufferPointer<Int16>) -> Float {
        guard !samples.isEmpty else { return Decibels.floor }
        var sum: Double = 0
        for s in samples { sum += Double(Int32(s) * Int32(s)) }
        return Decibels.dBFS(Float((sum / Double(samples.count)).squareRoot()))
    }

    /// Peak in dBFS of a whole buffer.
    public static func peakDBFS(_ samples: UnsafeBufferPointer<Int16>) -> Float {
        var peak: Int32 = 0
        for s in samples { peak = max(peak, abs(Int32(s))) }
        return Decibels.dBFS(Float(peak))
    }
}

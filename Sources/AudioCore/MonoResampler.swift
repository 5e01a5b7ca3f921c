/// A mono Int16 sample-rate converter as `PlaybackChannelWriter` drives it: speexdsp's `Resampler`
/// or `PolyphaseResampler`.
public protocol MonoResampler: AnyObject {
    /// Converts as much of `input` as fits in `output`: (consumed input samples, written output samples).
    func process(input: UnsafeBufferPointer<Int16>, output: UnsafeMutableBufferPointer<Int16>) -> (consumed: Int, produced: Int)
    /// Filter delay in input samples: this much silence pushes the last input out.
    var inputLatency: Int { get }
    /// Clears the history.
    func reset()
    /// After `reset`: the first output sample is at the first input sample.
    func skipZeros()
}

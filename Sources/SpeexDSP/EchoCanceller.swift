/// speexdsp's MDF acoustic echo canceller on 16-bit mono frames.
///
/// Not thread-safe: use it from one thread at a time. It is `@unchecked Sendable` only so that an
/// owner can hand it to the realtime capture thread.
public final class EchoCanceller: @unchecked Sendable {
    public let frameSize: Int
    public let filterLength: Int
    public let sampleRate: Int
    /// Number of taps `impulseResponse(into:)` writes: speexdsp rounds the filter up to whole frames
    /// (`filterLength` 3072 with 160-sample frames is 20 blocks, 3200 taps), so this can exceed
    /// `filterLength`.
    public let impulseResponseLength: Int
    let handle: EchoHandle

    /// - Parameters:
    ///   - frameSize: samples per call (speex works best with a power of two, e.g. 256 at 16 kHz).
    ///   - filterLength: the echo tail in samples (e.g. 3072 = 192 ms at 16 kHz).
    public init(frameSize: Int, filterLength: Int, sampleRate: Int) throws(SpeexDSPError) {
        handle = try EchoHandle(frameSize: frameSize, filterLength: filterLength, sampleRate: sampleRate)
        self.frameSize = frameSize
        self.filterLength = filterLength
        self.sampleRate = sampleRate
        impulseResponseLength = handle.impulseResponseSize()
    }

    /// Cancels the echo of `reference` (what was played) from `mic`. All three buffers hold
    /// `frameSize` samples; `output` may not alias the inputs. Realtime-safe.
    @inline(__always)
    public func process(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>, output: UnsafeMutableBufferPointer<Int16>) {
        precondition(mic.count >= frameSize && reference.count >= frameSize && output.count >= frameSize)
        handle.cancel(mic: mic.baseAddress!, reference: reference.baseAddress!, output: output.baseAddress!)
    }

    /// Forgets the adapted filter (e.g. after the reference was re-aligned).
    public func reset() { handle.reset() }

    /// Copies the adapted time-domain filter (scaled to Int32, 32767 = unity) into `into`,
    /// which must hold `impulseResponseLength` values. Costs one inverse FFT per filter block;
    /// allocation-free.
    public func impulseResponse(into: UnsafeMutableBufferPointer<Int32>) {
        precondition(into.count >= impulseResponseLength, "impulseResponse needs \(impulseResponseLength) taps, got \(into.count)")
        handle.impulseResponse(into: into.baseAddress!)
    }
}

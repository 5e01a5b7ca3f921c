import Glibc

/// An in-place radix-2 complex FFT whose work can be split into bounded steps (one permutation or
/// one butterfly stage per call), so heavy correlation can be spread over realtime frames.
/// All storage is allocated in init.
final class StagedFFT {
    /// Owns every buffer below.
    private let buffers = BufferStore()
    let size: Int
    let stages: Int
    let re: UnsafeMutablePointer<Float>
    let im: UnsafeMutablePointer<Float>
    /// Twiddles stage by stage, each stage's contiguous: stage s (half = 2^(s-1)) at offset half - 1,
    /// e^{-iπt/half} for t in 0..<half (the same values as e^{-2πik/size} at k = t·size/(2·half)).
    /// Contiguous twiddles let the butterfly loop run over unit strides, which the compiler vectorizes.
    private let twiddleRe: UnsafeMutablePointer<Float>
    private let twiddleIm: UnsafeMutablePointer<Float>
    private let bitReversed: UnsafeMutablePointer<Int32>

    init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        stages = size.trailingZeroBitCount
        re = buffers.take(size, 0)
        im = buffers.take(size, 0)
        twiddleRe = buffers.takeUninitialized(size)
        twiddleIm = buffers.takeUninitialized(size)
        var half = 1
        while half < size {
            let step = size / (2 * half)
            for t in 0..<half {
                let a = -2 * Double.pi * Double(t * step) / Double(size)
                twiddleRe[half - 1 + t] = Float(cos(a))
                twiddleIm[half - 1 + t] = Float(sin(a))
            }
            half <<= 1
        }
        bitReversed = buffers.takeUninitialized(size)
        for i in 0..<size {
            var r = 0
            for b in 0..<stages where i & (1 << b) != 0 { r |= 1 << (stages - 1 - b) }
            bitReversed[i] = Int32(r)
        }
    }

    /// Step 0 of a transform.
    func permute() {
        for i in 0..<size {
            let j = Int(bitReversed[i])
            if j > i {
                let tr = re[i]
                re[i] = re[j]
                re[j] = tr
                let ti = im[i]
                im[i] = im[j]
                im[j] = ti
            }
        }
    }

    /// Butterfly stage `stage` (1...stages); `inverse` uses conjugate twiddles (no 1/N scaling).
    func runStage(_ stage: Int, inverse: Bool) {
        // Locals and wrapping index arithmetic: the stored pointers are not reloaded after each
        // store, and no overflow checks sit in the inner loop (indices stay below `size`).
        let re = self.re, im = self.im
        let size = self.size
        let half = 1 << (stage - 1)
        if half == 1 {
            // Twiddle 1: sums and differences only.
            var a = 0
            while a < size {
                let ar = re[a], ai = im[a], br = re[a &+ 1], bi = im[a &+ 1]
                re[a &+ 1] = ar - br
                im[a &+ 1] = ai - bi
                re[a] = ar + br
                im[a] = ai + bi
                a &+= 2
            }
            return
        }
        let sign: Float = inverse ? -1 : 1
        let wRe = twiddleRe + (half - 1), wIm = twiddleIm + (half - 1)
        var start = 0
        while start < size {
            let lowRe = re + start, lowIm = im + start
            let highRe = lowRe + half, highIm = lowIm + half
            for t in 0..<half {
                let wr = wRe[t], wi = sign * wIm[t]
                let br = highRe[t], bi = highIm[t], ar = lowRe[t], ai = lowIm[t]
                let xr = br * wr - bi * wi
                let xi = br * wi + bi * wr
                highRe[t] = ar - xr
                highIm[t] = ai - xi
                lowRe[t] = ar + xr
                lowIm[t] = ai + xi
            }
            start &+= 2 &* half
        }
    }

    /// The whole transform at once (tests, offline use).
    func transform(inverse: Bool) {
        permute()
        for s in 1...stages { runStage(s, inverse: inverse) }
    }
}

import Glibc

/// An in-place radix-2 complex FFT whose work can be split into bounded steps (one permutation or
/// one butterfly stage per call), so heavy correlation can be spread over realtime frames.
/// All storage is allocated in init.
final class StagedFFT {
    let size: Int
    let stages: Int
    let re: UnsafeMutablePointer<Float>
    let im: UnsafeMutablePointer<Float>
    private let cosTable: UnsafeMutablePointer<Float>
    private let sinTable: UnsafeMutablePointer<Float>
    private let bitReversed: UnsafeMutablePointer<Int32>

    init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        stages = size.trailingZeroBitCount
        re = .allocate(capacity: size); re.initialize(repeating: 0, count: size)
        im = .allocate(capacity: size); im.initialize(repeating: 0, count: size)
        cosTable = .allocate(capacity: size / 2)
        sinTable = .allocate(capacity: size / 2)
        for k in 0..<size / 2 {
            let a = -2 * Double.pi * Double(k) / Double(size)
            cosTable[k] = Float(cos(a))
            sinTable[k] = Float(sin(a))
        }
        bitReversed = .allocate(capacity: size)
        for i in 0..<size {
            var r = 0
            for b in 0..<stages where i & (1 << b) != 0 { r |= 1 << (stages - 1 - b) }
            bitReversed[i] = Int32(r)
        }
    }

    deinit {
        re.deallocate(); im.deallocate(); cosTable.deallocate(); sinTable.deallocate(); bitReversed.deallocate()
    }

    /// Step 0 of a transform.
    func permute() {
        for i in 0..<size {
            let j = Int(bitReversed[i])
            if j > i {
                let tr = re[i]; re[i] = re[j]; re[j] = tr
                let ti = im[i]; im[i] = im[j]; im[j] = ti
            }
        }
    }

    /// Butterfly stage `stage` (1...stages); `inverse` uses conjugate twiddles (no 1/N scaling).
    func runStage(_ stage: Int, inverse: Bool) {
        // Locals and wrapping index arithmetic: the stored pointers are not reloaded after each
        // store, and no overflow checks sit in the inner loop (indices stay below `size`).
        let re = self.re, im = self.im, cosTable = self.cosTable, sinTable = self.sinTable
        let size = self.size
        let half = 1 << (stage - 1)
        let step = size >> stage
        let sign: Float = inverse ? -1 : 1
        var start = 0
        while start < size {
            var a = start
            var t = 0
            let end = start &+ half
            while a < end {
                let wr = cosTable[t], wi = sign * sinTable[t]
                let b = a &+ half
                let br = re[b], bi = im[b], ar = re[a], ai = im[a]
                let xr = br * wr - bi * wi
                let xi = br * wi + bi * wr
                re[b] = ar - xr; im[b] = ai - xi
                re[a] = ar + xr; im[a] = ai + xi
                a &+= 1
                t &+= step
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

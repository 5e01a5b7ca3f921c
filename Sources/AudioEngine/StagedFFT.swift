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
        let half = 1 << (stage - 1)
        let step = size >> stage
        let sign: Float = inverse ? -1 : 1
        var start = 0
        while start < size {
            for j in 0..<half {
                let wr = cosTable[j * step], wi = sign * sinTable[j * step]
                let a = start + j, b = a + half
                let xr = re[b] * wr - im[b] * wi
                let xi = re[b] * wi + im[b] * wr
                re[b] = re[a] - xr; im[b] = im[a] - xi
                re[a] += xr; im[a] += xi
            }
            start += 2 * half
        }
    }

    /// The whole transform at once (tests, offline use).
    func transform(inverse: Bool) {
        permute()
        for s in 1...stages { runStage(s, inverse: inverse) }
    }
}

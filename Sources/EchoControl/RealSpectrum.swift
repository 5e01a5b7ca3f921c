import Glibc

/// The spectrum X_k and its power |X_k|², k = 0...N/2, of a real N-point block, from one N/2-point
/// complex FFT of its even and odd samples packed as real and imaginary parts, and one pass to split
/// their spectra (N = 512: 1024 butterflies instead of 2304).
/// Write the block into `input`, call `compute()`, read `re`, `im` and `power`. All storage is allocated in init.
final class RealSpectrum {
    /// Owns every buffer below.
    private let buffers = BufferStore()
    let size: Int
    /// `size` samples, zero until written.
    let input: UnsafeMutablePointer<Float>
    /// `size / 2 + 1` values each after `compute()`.
    let re: UnsafeMutablePointer<Float>
    let im: UnsafeMutablePointer<Float>
    let power: UnsafeMutablePointer<Float>
    private let fft: StagedFFT
    /// e^{-2πik/N}, k = 0...N/2.
    private let twiddleRe: UnsafeMutablePointer<Float>
    private let twiddleIm: UnsafeMutablePointer<Float>

    init(size: Int) {
        precondition(size >= 4 && size & (size - 1) == 0, "size must be a power of two >= 4")
        self.size = size
        fft = StagedFFT(size: size / 2)
        input = buffers.take(size, 0)
        re = buffers.take(size / 2 + 1, 0)
        im = buffers.take(size / 2 + 1, 0)
        power = buffers.take(size / 2 + 1, 0)
        twiddleRe = buffers.takeUninitialized(size / 2 + 1)
        twiddleIm = buffers.takeUninitialized(size / 2 + 1)
        for k in 0...size / 2 {
            let a = -2 * Double.pi * Double(k) / Double(size)
            twiddleRe[k] = Float(cos(a))
            twiddleIm[k] = Float(sin(a))
        }
    }

    func compute() {
        let half = size / 2, packedRe = fft.re, packedIm = fft.im
        for n in 0..<half {
            packedRe[n] = input[2 * n]
            packedIm[n] = input[2 * n + 1]
        }
        fft.transform(inverse: false)
        for k in 0...half {
            // Z_k and Z_{N/2-k} (indices mod N/2) give the even and odd samples' spectra.
            let a = k == half ? 0 : k, b = k == 0 ? 0 : half &- k
            let ar = packedRe[a], ai = packedIm[a], br = packedRe[b], bi = packedIm[b]
            let evenRe = 0.5 * (ar + br), evenIm = 0.5 * (ai - bi)
            let oddRe = 0.5 * (ai + bi), oddIm = -0.5 * (ar - br)
            let wr = twiddleRe[k], wi = twiddleIm[k]
            let xr = evenRe + wr * oddRe - wi * oddIm
            let xi = evenIm + wr * oddIm + wi * oddRe
            re[k] = xr
            im[k] = xi
            power[k] = xr * xr + xi * xi
        }
    }
}

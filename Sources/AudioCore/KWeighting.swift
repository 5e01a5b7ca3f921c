import Glibc

/// ITU-R BS.1770-4's K-weighting: the head's high-shelf (+4 dB above ~1.7 kHz) then the RLB high-pass
/// (~38 Hz). The standard tabulates both only at 48 kHz; these are designed from their analog
/// prototypes by the bilinear transform for any rate (libebur128's method), which reproduces the 48 kHz
/// table to 1e-9.
public enum KWeighting {
    /// The shelf, then the high-pass, for `sampleRate`.
    public static func filters(sampleRate: Int) -> (shelf: Biquad, highPass: Biquad) {
        let fs = Double(sampleRate)
        // Stage 1: the high shelf.
        var f0 = 1681.974450955533, q = 0.7071752369554196
        let gainDB = 3.999843853973347
        var k = tan(Double.pi * f0 / fs)
        let vh = pow(10, gainDB / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        let shelf = Biquad(
            b0: (vh + vb * k / q + k * k) / a0, b1: 2 * (k * k - vh) / a0, b2: (vh - vb * k / q + k * k) / a0,
            a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        // Stage 2: the RLB high-pass (its numerator is 1, -2, 1 as in the standard's table).
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / fs)
        a0 = 1 + k / q + k * k
        let highPass = Biquad(b0: 1, b1: -2, b2: 1, a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        return (shelf, highPass)
    }
}

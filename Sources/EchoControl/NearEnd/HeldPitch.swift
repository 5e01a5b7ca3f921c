/// Counts the frames whose voiced pitch the played reference does not have, at one period (within a
/// `toleranceDivisor`th of the last such frame's), across up to `gapFrames` frames in a row without it. A talker
/// holds his pitch from frame to frame, though a deep voice's frame under the echo often measures unvoiced or at
/// a harmonic's period between two that keep it; the meter's best period on the echo of a played voice mostly
/// jumps between its harmonics and gaps (at the shortest periods it can hold too, so the caller passes only
/// periods it trusts). One thread.
struct HeldPitch {
    let toleranceDivisor: Int
    let gapFrames: Int
    private var lag = 0
    private var missed = 0
    private(set) var frames = 0

    init(toleranceDivisor: Int, gapFrames: Int = 0) {
        self.toleranceDivisor = max(1, toleranceDivisor)
        self.gapFrames = max(0, gapFrames)
    }

    /// Back to no pitch held.
    mutating func reset() {
        lag = 0
        missed = 0
        frames = 0
    }

    /// One frame: the output's pitch period in samples where it is one the reference lacks, else nil.
    /// Returns how many frames have held it (0 for a frame without it).
    mutating func update(differingLag: Int?) -> Int {
        guard let differingLag else {
            if frames > 0 && missed < gapFrames {
                missed += 1
            } else {
                frames = 0
                missed = 0
            }
            return 0
        }
        let holds = frames > 0 && abs(differingLag - lag) <= max(1, differingLag / toleranceDivisor)
        frames = holds ? frames + 1 : 1
        missed = 0
        lag = differingLag
        return frames
    }
}

/// Counts the frames in a row whose voiced pitch the played reference does not have, at one period (within
/// a `toleranceDivisor`th of the last frame's). A talker holds his pitch from frame to frame; the meter's
/// best period on the echo of a played voice mostly jumps between its harmonics and gaps (at the shortest
/// periods it can hold too, so the caller passes only periods it trusts). One thread.
struct HeldPitch {
    let toleranceDivisor: Int
    private var lag = 0
    private(set) var frames = 0

    init(toleranceDivisor: Int) { self.toleranceDivisor = max(1, toleranceDivisor) }

    /// One frame: the output's pitch period in samples where it is one the reference lacks, else nil.
    /// Returns how many frames in a row have held it.
    mutating func update(differingLag: Int?) -> Int {
        guard let differingLag else {
            frames = 0
            return 0
        }
        let holds = frames > 0 && abs(differingLag - lag) <= max(1, differingLag / toleranceDivisor)
        frames = holds ? frames + 1 : 1
        lag = differingLag
        return frames
    }
}

/// Debounces per-band evidence of near-end speech: a frame counts when at least `bandFraction` of the
/// speech bands stand `margin` times above the predicted residual echo plus noise; `onsetFrames` such
/// frames in a row start speech, which then holds until `hangoverFrames` frames have passed since the last such frame
/// (that frame included).
struct NearEndDetector {
    let margin: Float
    let bandFraction: Float
    let onsetFrames: Int
    let hangoverFrames: Int
    private var run = 0
    private var hangover = 0
    private(set) var speech = false

    init(margin: Float, bandFraction: Float, onsetFrames: Int, hangoverFrames: Int) {
        self.margin = margin
        self.bandFraction = bandFraction
        self.onsetFrames = max(1, onsetFrames)
        self.hangoverFrames = max(0, hangoverFrames)
    }

    /// One frame: how many of `bandCount` bands were above the margin. Returns the verdict.
    mutating func update(bandsAbove: Int, bandCount: Int) -> Bool {
        run = Float(bandsAbove) >= bandFraction * Float(bandCount) ? run + 1 : 0
        if run >= onsetFrames {
            hangover = hangoverFrames
        } else if hangover > 0 {
            hangover -= 1
        }
        speech = run >= onsetFrames || hangover > 0
        return speech
    }
}

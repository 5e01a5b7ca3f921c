/// Debounces per-band evidence of near-end speech: a frame counts when at least `bandFraction` of the
/// speech bands stand `margin` times above the predicted residual echo plus noise; `onsetFrames` such
/// frames in a row start speech (once the caller lets it start), which then holds until `hangoverFrames`
/// frames have passed since the last such frame (that frame included).
struct NearEndDetector {
    let margin: Float
    let bandFraction: Float
    let onsetFrames: Int
    let hangoverFrames: Int
    private var run = 0
    private var hangover = 0
    private(set) var speech = false

    /// Whether the last frame counted.
    var counted: Bool { run > 0 }

    init(margin: Float, bandFraction: Float, onsetFrames: Int, hangoverFrames: Int) {
        self.margin = margin
        self.bandFraction = bandFraction
        self.onsetFrames = max(1, onsetFrames)
        self.hangoverFrames = max(0, hangoverFrames)
    }

    /// Back to no evidence heard.
    mutating func reset() {
        run = 0
        hangover = 0
        speech = false
    }

    /// Whether `bandsAbove` of `bandCount` bands make a frame count.
    func counts(bandsAbove: Int, bandCount: Int) -> Bool {
        Float(bandsAbove) >= bandFraction * Float(bandCount)
    }

    /// One frame: how many of `bandCount` bands were above the margin. Returns the verdict. `mayStart`
    /// false holds back a verdict that is not on yet (the run keeps counting): a caller's further test
    /// of the evidence.
    mutating func update(bandsAbove: Int, bandCount: Int, mayStart: Bool = true) -> Bool {
        update(counted: counts(bandsAbove: bandsAbove, bandCount: bandCount), mayStart: mayStart)
    }

    /// One frame the caller has already judged: `counted` whether it counts; `onsetHeard` that earlier frames
    /// the caller judged by other evidence were the onset, so a counted frame may start the verdict at once.
    mutating func update(counted: Bool, mayStart: Bool = true, onsetHeard: Bool = false) -> Bool {
        run = counted ? run + 1 : 0
        if counted && onsetHeard { run = max(run, onsetFrames) }
        let holds = run >= onsetFrames && (mayStart || speech)
        if holds {
            hangover = hangoverFrames
        } else if hangover > 0 {
            hangover -= 1
        }
        speech = holds || hangover > 0
        return speech
    }

    /// Ends the verdict and its run at once, hangover included.
    mutating func end() {
        run = 0
        hangover = 0
        speech = false
    }
}

/// Whether the far end, as the reference carries it, has speech's gaps: over the last `windowFrames`
/// frames in which it played, at least `dipFraction` of them `dipRatio` (20 dB) or more under the
/// loudest. A voice drops that far between words several times a second; music plays on (the ReSpeaker's
/// recordings: 0-3 % of their windows, every speech recording's 74-98 % open; `Benchmarks/aec-real`).
/// After a window without such dips it stays closed for `holdFrames` more, and it opens only once it has
/// heard `minimumFrames`. Frames more than an echo tail into the far end's silence are left out of the
/// window (the window spans pauses, so the next answer meets the last one's verdict) and open it: with
/// nothing playing there is no echo to mistake.
///
/// Possible near-end speech (`NearEndVerdicts`) may start only while this is open: its smaller count of
/// bands is what the residual of music swings into. While the far end is steady (its window has none of
/// speech's gaps now), the residual echo suppressor eases for its talker detector only after a verdict
/// (`EchoControlTuning.Suppressor.steadyFarEndTalkerMilliseconds`).
/// Allocation-free after init; realtime-safe.
struct SpeechLikeFarEnd {
    /// Owns every buffer below.
    private let buffers = BufferStore()
    typealias Tuning = EchoControlTuning.FarEndRhythm

    let windowFrames: Int
    let minimumFrames: Int
    let holdFrames: Int
    private let powers: UnsafeMutablePointer<Float>
    private var count = 0
    private var next = 0
    private var framesSinceSteady = Int.max / 2
    private(set) var isOpen = false
    /// The far end plays, the window has heard `minimumFrames`, and it has none of speech's gaps now: music
    /// (not held: a voice whose gaps came back is not steady, though the window is still closed).
    private(set) var isSteady = false

    init(
        frameMilliseconds: Float, windowMilliseconds: Float = Tuning.windowMilliseconds,
        minimumMilliseconds: Float = Tuning.minimumMilliseconds, holdMilliseconds: Float = Tuning.holdMilliseconds
    ) {
        windowFrames = max(1, Int((windowMilliseconds / frameMilliseconds).rounded()))
        minimumFrames = max(1, Int((minimumMilliseconds / frameMilliseconds).rounded()))
        holdFrames = Int((holdMilliseconds / frameMilliseconds).rounded())
        powers = buffers.take(windowFrames, 0)
    }

    /// Back to an empty window.
    mutating func reset() {
        for i in 0..<windowFrames { powers[i] = 0 }
        count = 0
        next = 0
        framesSinceSteady = Int.max / 2
        isOpen = false
        isSteady = false
    }

    /// One frame: the reference's mean-square power, and whether the far end played within an echo tail.
    mutating func update(power: Float, farEndActive: Bool) {
        guard farEndActive else {
            isOpen = true
            isSteady = false
            return
        }
        powers[next] = power
        next = next + 1 == windowFrames ? 0 : next + 1
        count = min(count + 1, windowFrames)
        guard count >= minimumFrames else {
            isOpen = false
            isSteady = false
            return
        }
        var loudest: Float = 0
        for i in 0..<count { loudest = max(loudest, powers[i]) }
        var dips = 0
        for i in 0..<count where powers[i] < Tuning.dipRatio * loudest { dips += 1 }
        let speechLike = Float(dips) >= Tuning.dipFraction * Float(count)
        framesSinceSteady = speechLike ? min(framesSinceSteady + 1, Int.max / 2) : 0
        isOpen = speechLike && framesSinceSteady > holdFrames
        isSteady = !speechLike
    }
}

/// What `rt:capture` runs for one chain frame (`CaptureChainDriver`).
enum CaptureWork: Equatable {
    /// Nothing of the chain: the mic goes to the uplink as it is (`CaptureChain.bypass`).
    case bypass
    /// Only what keeps the echo canceller ready for a conversation (`CaptureChain.track`).
    case track
    /// The whole chain (`CaptureChain.process`).
    case process
}

/// Decides, per chain frame, how much of the capture chain runs: all of it while someone may be listening,
/// only what keeps the canceller ready while the far end plays to nobody, nothing while all is quiet.
///
/// - A conversation captures (`listening`), or runs (`conversation`: an announcement, a typed question),
///   while the far end plays: `process`, as always.
/// - Nobody listens and the far end is silent (`IdleCaptureGate`): `bypass`.
/// - Nobody listens and the far end plays (radio): `track`, unless the talk button went down within the last
///   `wakeFrames` (`presses` changed): a hold's pre-roll starts at the press, before the hold is recognised,
///   so the chain runs in full from the press on.
///
/// Pure: the frame count is its clock. Allocation-free.
struct CaptureSchedule {
    /// Frames the chain runs in full after a press of the talk button.
    let wakeFrames: Int
    private var seenPresses = 0
    private var awakeFrames = 0

    init(wakeFrames: Int) {
        self.wakeFrames = max(0, wakeFrames)
    }

    /// One frame. `presses`: how often the talk button has gone down so far (any count; a change is a press).
    mutating func work(listening: Bool, conversation: Bool, farEndActive: Bool, presses: Int) -> CaptureWork {
        if presses != seenPresses {
            seenPresses = presses
            awakeFrames = wakeFrames
        } else if awakeFrames > 0 {
            awakeFrames -= 1
        }
        if !listening && !farEndActive { return .bypass }
        return listening || conversation || awakeFrames > 0 ? .process : .track
    }
}

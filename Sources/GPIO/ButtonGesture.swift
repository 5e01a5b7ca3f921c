import Basics

/// What the talk button means, as recognized by `GestureRecognizer` (ARCHITECTURE §4).
///
/// Sequences for one press: `tap`, or `holdBegan` … (`longHold`) … `holdEnded`. Every `holdBegan`
/// is followed by exactly one `holdEnded`; `longHold` arrives in between, while the button is
/// still down, once it has been held for the long-hold threshold.
public enum ButtonGesture: Sendable, Equatable, CustomStringConvertible {
    /// Released before the hold threshold.
    case tap
    /// Still pressed at the hold threshold: push-to-talk starts.
    case holdBegan
    /// Released after `holdBegan`; `heldFor` is the whole press.
    case holdEnded(heldFor: Duration)
    /// Still pressed at the long-hold threshold (forget the Jarvis session).
    case longHold
    /// A tap that began within the double-tap window after the previous tap ended (instead of `tap`; the
    /// first was reported as a tap): the microphone mute.
    case doubleTap

    public var description: String {
        switch self {
        case .tap: "tap"
        case .holdBegan: "hold began"
        case .holdEnded(let d): "hold ended after \(d.nanoseconds / 1_000_000) ms"
        case .longHold: "long hold"
        case .doubleTap: "double tap"
        }
    }
}

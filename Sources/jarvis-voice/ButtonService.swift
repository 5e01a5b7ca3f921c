import Conversation
import GPIO
import Logging
import ServiceLifecycle

/// Feeds the GPIO button's gestures to the conversation runner.
struct ButtonService: Service {
    let source: ButtonGestureSource
    let runner: ConversationRunner
    /// `[button] hold_ms`: a hold is recognised this long after the press began.
    let holdThreshold: Duration
    let logger: Logger

    func run() async throws {
        defer { source.stop() }
        try await cancelWhenGracefulShutdown {
            for try await gesture in source.gestures {
                logger.debug("button: \(gesture)")
                switch gesture {
                case .tap: runner.tap()
                case .holdBegan: runner.gesture(.holdStarted(pressedAt: runner.now() + (.zero - holdThreshold)))
                case .holdEnded: runner.release()
                case .longHold: runner.longHold()
                case .doubleTap: runner.gesture(.doubleTap)
                }
            }
        }
    }
}

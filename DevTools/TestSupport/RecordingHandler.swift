import Control
import Synchronization

/// A control-socket handler for tests: records the commands it got and answers from a closure.
public final class RecordingHandler: ControlHandler {
    private let received = Mutex<[ControlCommand]>([])
    private let answer: @Sendable (ControlCommand) async -> ControlResponse

    public init(_ answer: @escaping @Sendable (ControlCommand) async -> ControlResponse = RecordingHandler.standard) {
        self.answer = answer
    }

    public var commands: [ControlCommand] { received.withLock { $0 } }

    public func handle(_ command: ControlCommand) async -> ControlResponse {
        received.withLock { $0.append(command) }
        return await answer(command)
    }

    public static let idleStatus = ServiceStatus(
        state: "idle", realtimeConnected: false, jarvisSessionID: nil,
        media: MediaStatus(state: .stopped, volume: 0.5))

    @Sendable public static func standard(_ command: ControlCommand) async -> ControlResponse {
        switch command {
        case .status: .status(idleStatus)
        case .reset: .failed("nothing to reset")
        default: .done("ok: \(command.verb)")
        }
    }
}

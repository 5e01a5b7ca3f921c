import Appliance
import Control

/// Maps control-socket verbs onto the conversation runner; media verbs are not available yet.
struct ApplianceControlHandler: ControlHandler {
    let runner: ConversationRunner
    /// `[media] volume`, reported in `status` until a media player exists.
    let mediaVolume: Double

    func handle(_ command: ControlCommand) async -> ControlResponse {
        await withoutMedia(command) { command in
            switch command {
            case .tap:
                runner.tap()
                return .done("tap")
            case .press:
                runner.press()
                return .done("pressed")
            case .release:
                runner.release()
                return .done("released")
            case .reset:
                runner.reset()
                return .done("Jarvis session reset")
            case .ask(let text):
                runner.ask(text)
                return .done("asking")
            case .status:
                return .status(await status())
            default:
                return .notAvailableYet(command)
            }
        }
    }

    func status() async -> ServiceStatus {
        let conversation = await runner.status()
        return ServiceStatus(
            state: conversation.state.rawValue, realtimeConnected: conversation.realtimeConnected,
            jarvisSessionID: conversation.jarvisSessionID,
            media: MediaStatus(state: .stopped, title: nil, url: nil, volume: mediaVolume, ducked: conversation.media.ducked))
    }
}

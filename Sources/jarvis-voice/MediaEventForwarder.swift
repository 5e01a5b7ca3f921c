import Conversation
import Media
import Rooms
import ServiceLifecycle

/// Carries the media player's events to the conversation, in order: playing or not (a tap stops media
/// last), the user volume (the mixer's media gain, which ducking works relative to), and what the
/// assistant should say: the DJ loop's cues when an item ends, and a stream that was given up.
/// A stream is used because the player exists before the runner (the tools need it).
struct MediaEventForwarder: Service {
    let events: AsyncStream<MediaPlayerEvent>
    let runner: ConversationRunner
    /// `[media] dj` (announce the next item when one ends) and `radio_mode` (when the queue runs
    /// out, ask Jarvis for the next pick); SIGHUP changes them.
    let settings: MediaSettings
    /// The group's player, which gives local media the speaker and shares the media volume with the server.
    let snapcast: SnapcastPlayer?

    func run() async {
        for await event in events.cancelOnGracefulShutdown() {
            switch event {
            case .playbackChanged(let state):
                runner.mediaChanged(playing: state == .playing)
                snapcast?.localMediaChanged(playing: state == .playing || state == .buffering)
            case .volumeChanged(let level, let gain):
                runner.setMediaVolume(gain)
                snapcast?.localVolumeChanged(level)
            case .streamTitleChanged:
                break
            case .itemEnded:
                guard settings.dj, let cue = MediaCue(event: event, radioMode: settings.radioMode) else { continue }
                runner.announce(cue)
            case .gaveUp:
                // Never silence without a word: said even with the DJ loop off.
                guard let cue = MediaCue(event: event, radioMode: settings.radioMode) else { continue }
                runner.announce(cue)
            }
        }
    }
}

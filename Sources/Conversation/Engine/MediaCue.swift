import Media

/// What the model is told when media needs a spoken moment (the DJ loop, a stream that gave up); hand it to
/// `ConversationRunner.announce(_:)`. The texts are instructions to the model, sent as system items.
public struct MediaCue: Sendable, Equatable {
    public var text: String

    public init(text: String) { self.text = text }

    /// An item ended and the queue started the next one: a one-sentence introduction, no tools.
    public static func nextUp(after ended: MediaItem, next: MediaItem) -> MediaCue {
        MediaCue(text: "That was \(name(ended)). Next up: \(name(next)). Introduce it in one short sentence; do not call tools.")
    }

    /// An item ended in radio mode with an empty queue: Jarvis picks the next one, the model plays and introduces it.
    public static func needsNextPick(after ended: MediaItem) -> MediaCue {
        MediaCue(
            text: "That was \(name(ended)). Radio mode is on and the queue is empty: call ask_jarvis for the next pick "
                + "(something that fits what was just played and was not played recently), play it with play_audio using "
                + "exactly the URL, title and type Jarvis gives, and introduce it in one short sentence.")
    }

    /// A stream failed for good (permanent error or too many failed reconnects).
    public static func gaveUp(_ item: MediaItem, reason: String) -> MediaCue {
        MediaCue(
            text: "Tell the user briefly, in one sentence, that the stream \(name(item)) stopped and could not be restarted: "
                + "\(reason). Do not call tools.")
    }

    /// The cue for a player event, if it needs one. `radioMode`: the user asked for continuous play (DJ mode).
    public init?(event: MediaPlayerEvent, radioMode: Bool) {
        switch event {
        case .itemEnded(let ended, let next?): self = Self.nextUp(after: ended, next: next)
        case .itemEnded(let ended, nil) where radioMode: self = Self.needsNextPick(after: ended)
        case .gaveUp(let item, let reason): self = Self.gaveUp(item, reason: reason)
        case .itemEnded, .playbackChanged, .volumeChanged, .streamTitleChanged: return nil
        }
    }

    /// How an item is named to the model: "“title” (show)", falling back to the show or the URL.
    static func name(_ item: MediaItem) -> String {
        switch (item.title, item.show) {
        case (let title?, let show?) where show != title: "\u{201C}\(title)\u{201D} (\(show))"
        case (let title?, _): "\u{201C}\(title)\u{201D}"
        case (nil, let show?): "\u{201C}\(show)\u{201D}"
        case (nil, nil): item.url
        }
    }
}

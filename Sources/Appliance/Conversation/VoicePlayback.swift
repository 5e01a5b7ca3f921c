/// What the engine knows about the voice channel: samples queued since the last flush, samples played
/// (reported by the playback side), and the assistant item currently being played, for truncation.
struct VoicePlayback: Sendable {
    static let sampleRate = 24_000

    struct Item: Sendable {
        var id: String
        var responseID: String
        /// Offset of the item's first sample in the voice stream since the last flush.
        var start: Int
        var received: Int
        var audioDone = false
    }

    /// The voice is held for near-end speech that may be a barge-in (`BargeInRule.minimumSpeech`).
    struct Pause: Sendable {
        /// Near-end speech heard since the pause, not counting the stretch still going on...
        var heard: Duration = .zero
        /// ...which started here.
        var speechSince: EngineTime?
    }

    private(set) var received = 0
    private(set) var played = 0
    private(set) var item: Item?
    /// Set while the voice channel is paused (`pauseVoice`); a flush ends the pause.
    var pause: Pause?

    /// Queued audio has not all been played yet.
    var isPlaying: Bool { played < received }

    /// The channel holds something a flush must clear: audio not yet played, or a pause.
    var needsFlush: Bool { isPlaying || pause != nil }

    mutating func receive(itemID: String, responseID: String, samples: Int) {
        if item?.id != itemID {
            item = Item(id: itemID, responseID: responseID, start: received, received: 0)
        }
        item?.received += samples
        received += samples
    }

    mutating func audioDone(itemID: String) {
        if item?.id == itemID { item?.audioDone = true }
    }

    mutating func reportPlayed(_ samples: Int) { played = max(0, samples) }

    /// The truncate for the current item: milliseconds actually played, clamped to what was received.
    /// nil when there is no item or it was played completely.
    func truncation() -> (itemID: String, audioEndMs: Int)? {
        guard let item else { return nil }
        let playedOfItem = min(max(0, played - item.start), item.received)
        if item.audioDone, playedOfItem >= item.received { return nil }
        return (item.id, playedOfItem * 1000 / Self.sampleRate)
    }

    mutating func flushed() {
        received = 0
        played = 0
        item = nil
        pause = nil
    }
}

/// What the engine knows about the voice channel: samples queued since the last flush, samples played
/// (reported by the playback side), and the assistant items in the order their audio was queued, so a stop
/// truncates the item under the playhead and removes the ones not yet heard.
struct VoicePlayback: Sendable {
    static let sampleRate = 24_000

    struct Item: Sendable, Equatable {
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

    /// What stopping the voice now leaves the server to correct in its history.
    struct StopPlan: Sendable, Equatable {
        struct Truncation: Sendable, Equatable {
            var itemID: String
            /// What was heard of the item: played samples, clamped to the item's received audio.
            var audioEndMs: Int
        }

        /// The item under the playhead, cut at what was heard of it (nil: it was heard to its end).
        var truncate: Truncation?
        /// Items queued after it, of which nothing was heard.
        var delete: [String]
    }

    private(set) var received = 0
    private(set) var played = 0
    /// Every item queued since the last flush, in stream order (a response may carry several: a spoken
    /// preamble, then the answer).
    private(set) var items: [Item] = []
    /// Set while the voice channel is paused (`pauseVoice`); a flush ends the pause.
    var pause: Pause?

    /// Queued audio has not all been played yet.
    var isPlaying: Bool { played < received }

    /// The channel holds something a flush must clear: audio not yet played, or a pause.
    var needsFlush: Bool { isPlaying || pause != nil }

    /// The item being heard: the last one whose audio starts before the playhead, else the first.
    var current: Item? { items.last { $0.start < played } ?? items.first }

    mutating func receive(itemID: String, responseID: String, samples: Int) {
        if items.last?.id != itemID {
            items.append(Item(id: itemID, responseID: responseID, start: received, received: 0))
        }
        items[items.count - 1].received += samples
        received += samples
    }

    mutating func audioDone(itemID: String) {
        for index in items.indices where items[index].id == itemID { items[index].audioDone = true }
    }

    /// `response.done`: no more audio comes for any item of `responseID`.
    mutating func responseDone(_ responseID: String?) {
        for index in items.indices where items[index].responseID == responseID { items[index].audioDone = true }
    }

    mutating func reportPlayed(_ samples: Int) { played = max(0, samples) }

    /// The truncate and deletes that tell the server what was heard; nil when everything queued was heard
    /// to its end (or nothing was queued).
    func stopPlan() -> StopPlan? {
        guard let current, let index = items.firstIndex(of: current) else { return nil }
        let heard = min(max(0, played - current.start), current.received)
        let heardToTheEnd = current.audioDone && heard >= current.received
        let plan = StopPlan(
            truncate: heardToTheEnd ? nil : StopPlan.Truncation(itemID: current.id, audioEndMs: heard * 1000 / Self.sampleRate),
            delete: items[(index + 1)...].map(\.id))
        return plan.truncate == nil && plan.delete.isEmpty ? nil : plan
    }

    mutating func flushed() {
        received = 0
        played = 0
        items = []
        pause = nil
    }
}

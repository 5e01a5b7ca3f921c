/// What the runner has handed to the voice channel since its last flush, and the playhead it last
/// reported to the engine (`voicePlayed` is fed only when it moves).
struct VoiceOutputProgress {
    private(set) var samplesSinceFlush = 0
    private(set) var lastReportedPlayed = 0

    mutating func enqueued(_ samples: Int) { samplesSinceFlush += samples }

    mutating func flushed() {
        samplesSinceFlush = 0
        lastReportedPlayed = 0
    }

    /// The channel's played count now: returns it when it moved since the last report.
    mutating func played(_ samples: Int) -> Int? {
        guard samples != lastReportedPlayed else { return nil }
        lastReportedPlayed = samples
        return samples
    }

    /// The engine forgot its voice item without a flush (everything was played): the channel's count
    /// must restart too.
    func needsFlush(engineReceived: Int) -> Bool { engineReceived == 0 && samplesSinceFlush > 0 }
}

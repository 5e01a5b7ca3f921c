extension VorbisComments {
    /// ReplayGain 2.0's reference loudness: its track gain brings a track to −18 LUFS.
    public static let replayGainReference = -18.0
    /// EBU R128's: Opus's `R128_TRACK_GAIN` brings a track to −23 LUFS (RFC 7845 §5.2.1).
    public static let r128Reference = -23.0

    /// The track's loudness in LUFS that its tags imply: `R128_TRACK_GAIN` (a Q7.8 integer in dB, after
    /// Opus's output gain, which libopus applies), else `REPLAYGAIN_TRACK_GAIN` ("-6.5 dB"). Nil when
    /// neither is there or readable, or a gain is beyond ±64 dB (no real track needs that).
    public var trackLoudness: Double? {
        if let text = value("R128_TRACK_GAIN"), let q78 = Int(text.trimmingCharacters(in: " ")), abs(q78) <= 64 * 256 {
            return Self.r128Reference - Double(q78) / 256
        }
        guard var text = value("REPLAYGAIN_TRACK_GAIN")?.trimmingCharacters(in: " ") else { return nil }
        if text.lowercased().hasSuffix("db") { text = String(text.dropLast(2)).trimmingCharacters(in: " ") }
        if text.hasPrefix("+") { text.removeFirst() }
        guard let gain = Double(text), gain.isFinite, abs(gain) <= 64 else { return nil }
        return Self.replayGainReference - gain
    }
}

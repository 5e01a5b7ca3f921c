import Media

/// The assistant's voice and earcon level (`ctl voice-volume`), 0...1 as an amplitude factor, kept in
/// `state_dir/voice-volume` (one decimal number); 1.0 when there is none.
public final class VoiceVolumeStore: Sendable {
    public static let fileName = "voice-volume"

    private let setting: SavedSetting<Double>

    /// Reads the saved level; `problem` receives one plain sentence when the file exists but is unusable.
    public init(stateDirectory: String, problem: (String) -> Void = { _ in }) {
        setting = SavedSetting(
            stateDirectory: stateDirectory, fileName: Self.fileName, defaultValue: 1.0, describe: "a level from 0.0 to 1.0",
            parse: Self.parse, format: { "\($0)" }, problem: problem)
    }

    public var current: Double { setting.current }

    /// Sets and saves the level (already validated to 0...1). Throws when it could not be saved; the new
    /// level applies anyway.
    public func set(_ value: Double) throws(MediaStateFiles.Failure) { try setting.set(value) }

    /// A decimal number from 0 to 1 (the file's trimmed text); nil otherwise.
    static func parse(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite, (0.0...1.0).contains(value) else { return nil }
        return value
    }
}

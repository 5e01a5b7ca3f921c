import Media

/// The microphone privacy mute (`ctl mute on|off`, a double tap), kept in `state_dir/microphone` as `on` or
/// `off`: a box muted before a restart or a power cut starts muted. Off when there is none.
public final class MicrophoneMuteStore: Sendable {
    public static let fileName = "microphone"

    private let setting: SavedSetting<Bool>

    /// Reads the saved mute; `problem` receives one plain sentence when the file exists but is unusable.
    public init(stateDirectory: String, problem: (String) -> Void = { _ in }) {
        setting = SavedSetting(
            stateDirectory: stateDirectory, fileName: Self.fileName, defaultValue: false, describe: "\"on\" or \"off\"",
            parse: { text in text == "off" ? true : text == "on" ? false : nil }, format: { $0 ? "off" : "on" },
            problem: problem)
    }

    /// Whether the microphone is muted.
    public var muted: Bool { setting.current }

    /// Sets and saves the mute. Throws when it could not be saved; it applies anyway.
    public func set(muted: Bool) throws(MediaStateFiles.Failure) { try setting.set(muted) }
}

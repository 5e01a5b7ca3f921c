import EchoControl

/// The whole configuration file. `JarvisVoiceConfig()` is the documented defaults;
/// `ConfigLoader` builds one from TOML (see `JarvisVoiceConfig.init(toml:problems:)`).
public struct JarvisVoiceConfig: Sendable, Equatable {
    public var audio: AudioConfig = .init()
    /// `[dsp]`: the capture chain's settings, with their defaults and limits, are EchoControl's own.
    public var dsp: CaptureChainConfiguration = .init()
    public var realtime: RealtimeConfig = .init()
    public var jarvis: JarvisConfig = .init()
    public var button: ButtonConfig = .init()
    public var led: LEDConfig = .init()
    public var media: MediaConfig = .init()
    public var snapcast: SnapcastConfig = .init()
    public var control: ControlConfig = .init()
    public var timers: TimersConfig = .init()
    public var log: LogConfig = .init()

    public init() {}
}

/// The whole configuration file. `JarvisVoiceConfig()` is the documented defaults;
/// `ConfigLoader` builds one from TOML (see `JarvisVoiceConfig.init(toml:problems:)`).
public struct JarvisVoiceConfig: Sendable, Equatable {
    public var audio: AudioConfig
    public var dsp: DSPConfig
    public var realtime: RealtimeConfig
    public var jarvis: JarvisConfig
    public var button: ButtonConfig
    public var led: LEDConfig
    public var media: MediaConfig
    public var control: ControlConfig
    public var log: LogConfig

    public init(
        audio: AudioConfig = .init(),
        dsp: DSPConfig = .init(),
        realtime: RealtimeConfig = .init(),
        jarvis: JarvisConfig = .init(),
        button: ButtonConfig = .init(),
        led: LEDConfig = .init(),
        media: MediaConfig = .init(),
        control: ControlConfig = .init(),
        log: LogConfig = .init()
    ) {
        self.audio = audio
        self.dsp = dsp
        self.realtime = realtime
        self.jarvis = jarvis
        self.button = button
        self.led = led
        self.media = media
        self.control = control
        self.log = log
    }
}

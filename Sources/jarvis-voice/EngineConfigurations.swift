import ALSA
import AudioCore
import AudioEngine
import Configuration
import Conversation
import EchoControl
import GPIO
import Jarvis
import Media
import Realtime
import Rooms
import Snapcast

// The one place where the file's sections become the engines' configurations, so `run`, `dsp` and
// `audio-check` can never disagree about what a key means (`[dsp]` is the chain's own configuration).

extension AudioPipelineConfiguration {
    init(_ config: JarvisVoiceConfig) {
        let audio = config.audio
        self.init(
            captureDevice: PCMDevice(name: audio.captureDevice), captureRate: audio.captureRate,
            captureChannels: audio.captureChannels, micChannel: audio.micChannel,
            referenceChannel: audio.referenceChannel,
            playbackDevice: PCMDevice(name: audio.playbackDevice),
            playbackFormat: AudioFormat(sampleRate: audio.playbackRate, channels: audio.playbackChannels),
            periodMilliseconds: audio.periodMs, bufferPeriods: audio.bufferPeriods,
            fifoPriority: audio.realtimePriority > 0 ? Int32(audio.realtimePriority) : nil,
            chain: config.dsp,
            // A hold is recognised `hold_ms` after the press; its pre-roll reaches back to the press.
            pressWakeMilliseconds: config.button.holdMs + 1_000)
    }
}

extension ButtonLineSettings {
    init(_ button: ButtonConfig) {
        self.init(
            chip: button.chip, line: button.line, activeLow: button.activeLow,
            bias: GPIOLineBias(button.bias), debounce: .milliseconds(button.debounceMs))
    }
}

extension GPIOLineBias {
    init(_ bias: GPIOBias) {
        switch bias {
        case .pullUp: self = .pullUp
        case .pullDown: self = .pullDown
        case .disabled: self = .disabled
        case .asIs: self = .asIs
        }
    }
}

extension GestureRecognizer.Settings {
    init(_ button: ButtonConfig) {
        self.init(
            debounce: .milliseconds(button.debounceMs), hold: .milliseconds(button.holdMs),
            longHold: .milliseconds(button.longHoldMs), doubleTap: .milliseconds(button.doubleTapMs))
    }
}

extension LEDLineSettings {
    /// nil when `[led]` is disabled or names no line.
    init?(_ led: LEDConfig) {
        guard led.enabled, let line = led.line else { return nil }
        self.init(chip: led.chip, line: line, activeLow: led.activeLow)
    }
}

extension JarvisSettings {
    init(_ config: JarvisConfig) {
        self.init(
            url: config.url, tokenFile: config.tokenFile, api: API(rawValue: config.api.rawValue) ?? .chatCompletions,
            inactivityTimeout: config.inactivityTimeout, totalTimeout: config.totalTimeout,
            sessionIdleReset: config.sessionIdleReset, maxAnswerWords: config.maxAnswerWords)
    }
}

extension MediaPlayerConfiguration {
    init(_ config: MediaConfig) {
        var stream = MediaStreamSettings()
        stream.maxConsecutiveFailures = config.reconnectAttempts
        self.init(
            stateDir: config.stateDir, defaultVolume: config.volume, stream: stream,
            stationCatalogURL: config.stationCatalogURL.isEmpty ? SomaFMCatalog.channelsURL : config.stationCatalogURL,
            refreshStationCatalog: !config.stationCatalogURL.isEmpty)
    }
}

extension LoudnessTarget {
    /// `[media] loudness_target`: the LUFS media and the voice are leveled to; 0 turns leveling off.
    convenience init(_ media: MediaConfig) {
        self.init(media.leveling)
    }
}

extension RealtimeSessionSettings {
    init(_ config: RealtimeConfig) {
        let detection: VoiceActivityDetection =
            switch config.vad {
            case .semantic: .semantic(eagerness: TurnDetection.SemanticVAD.Eagerness(rawValue: config.vadEagerness.rawValue) ?? .auto)
            case .server: .server(threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500)
            }
        self.init(
            voice: config.voice, handsFreeDetection: detection,
            reasoningEffort: RealtimeModels.model(for: config.model).reasons ? config.reasoningEffort : nil)
    }
}

extension Ducker.Configuration {
    init(_ media: MediaConfig) {
        self.init(
            depthDecibels: Float(media.duckDB), duckMilliseconds: media.duckRampMs,
            restoreMilliseconds: media.restoreRampMs)
    }
}

extension ConversationConfiguration {
    /// The service's conversation: barge-in decided by the capture chain's near-end detector.
    init(_ config: JarvisVoiceConfig) {
        self.init(
            session: RealtimeSessionSettings(config.realtime), model: RealtimeModels.model(for: config.realtime.model),
            connectTimeout: config.realtime.connectTimeout, quietPeriod: config.realtime.idleTimeout,
            doubleTapWindow: .milliseconds(config.button.doubleTapMs), ringCap: config.timers.ringCap,
            bargeIn: BargeInRule(localDetector: true))
    }
}

extension SnapcastPlayerSettings {
    /// nil when `[snapcast]` is off (or its server unusable, which `check-config` reports).
    init?(_ snapcast: SnapcastConfig, hostName: String) {
        guard snapcast.enabled, let address = snapcast.address else { return nil }
        let name = snapcast.name.isEmpty ? hostName : snapcast.name
        self.init(
            host: address.host, port: address.port,
            hello: SnapcastHello(id: snapcast.id.isEmpty ? name : snapcast.id, hostName: name, arch: Self.architecture))
        controlPort = snapcast.controlPort
    }

    /// As snapclient reports it (the snapserver's apps show it).
    static var architecture: String {
        #if arch(arm64)
            "aarch64"
        #elseif arch(x86_64)
            "x86_64"
        #else
            "unknown"
        #endif
    }
}

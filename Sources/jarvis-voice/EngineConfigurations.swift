import ALSA
import AudioCore
import AudioEngine
import EchoControl
import Configuration
import GPIO

// The one place where the file's sections become the engines' configurations, so `run` and
// `dsp` can never disagree about what a key means.

extension CaptureChainConfiguration {
    init(_ dsp: DSPConfig) {
        self.init()
        frameMilliseconds = dsp.frameMs
        echoTailMilliseconds = dsp.echoTailMs
        maxReferenceLagMilliseconds = dsp.maxReferenceLagMs
        driftCompensation = dsp.driftCompensation
        noiseSuppressDB = dsp.noiseSuppressDB
        echoSuppressDB = dsp.echoSuppressDB
        echoSuppressActiveDB = dsp.echoSuppressActiveDB
        residualEchoSuppression = dsp.residualEchoSuppressor
        referenceLevelMatching = dsp.matchReferenceLevel
        agc = dsp.agc
        agcLevel = dsp.agcLevel
    }
}

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
            chain: CaptureChainConfiguration(config.dsp))
    }
}

extension ButtonLineSettings {
    init(_ button: ButtonConfig) {
        self.init(chip: button.chip, line: button.line, activeLow: button.activeLow,
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
        self.init(debounce: .milliseconds(button.debounceMs), hold: .milliseconds(button.holdMs),
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

import ALSA
import ArgumentParser
import AudioCore
import AudioEngine
import Configuration
import EchoControl
import Glibc
import Logging

/// `jarvis-voice audio-check`: the service's real audio pipeline, built from the configuration, for
/// a few seconds: plays a WAV (or the earcons), records the processed 24 kHz uplink, and reports
/// what the devices negotiated and how the capture chain and the realtime threads did.
struct AudioCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-check",
        abstract: "Run the audio pipeline for a few seconds: play, record the processed uplink, report.",
        discussion: """
            Opens the capture and playback devices of [audio] exactly as `run` does (same threads, \
            same SCHED_FIFO request, same capture chain from [dsp]), plays IN (16-bit mono or stereo \
            WAV at any rate) on the voice channel, or the earcons when --play is not given, and \
            writes the echo-cancelled 24 kHz mono uplink to OUT. Exits 0 after the report; 78 with \
            "PATH:LINE: message" lines for configuration problems; 69 when a device cannot be \
            opened; 65/66/73/74 for unusable, missing, uncreatable or unwritable files.
            """
    )

    @OptionGroup var options: ConfigOption

    @Option(help: ArgumentHelp("Sound to play (16-bit PCM WAV, mono or stereo, any rate). Default: the earcons.", valueName: "IN.wav"))
    var play: String?

    @Option(help: ArgumentHelp("Where to write the processed uplink (24 kHz mono WAV).", valueName: "OUT.wav"))
    var out: String

    @Option(help: "Seconds to record (1...600).")
    var seconds: Int = 5

    @Flag(
        help: ArgumentHelp(
            "Run the loops as `run` does between conversations (mic read in batches, deeper playback queue; "
                + "while sound plays the capture chain only keeps its echo canceller ready and the uplink is "
                + "silent) instead of on the conversation path."))
    var betweenConversations = false

    @Option(
        help: ArgumentHelp(
            "With --between-conversations: take the conversation path from this many seconds of audio on, as a "
                + "tap does.", valueName: "SECONDS"))
    var listenAfter: Int?

    func validate() throws {
        guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be in 1...600") }
        if let listenAfter {
            guard betweenConversations else { throw ValidationError("--listen-after needs --between-conversations") }
            guard (0..<seconds).contains(listenAfter) else { throw ValidationError("--listen-after must be under --seconds") }
        }
    }

    func run() throws {
        let config: JarvisVoiceConfig
        do {
            config = try ConfigLoader.load(path: options.config, for: .audioOnly)
        } catch {
            for line in error.lines { print(line) }
            throw ConfigOption.exConfig
        }
        do {
            let report = try AudioCheck(
                configuration: AudioPipelineConfiguration(config), play: play, seconds: seconds,
                conversation: !betweenConversations, listenAfter: listenAfter
            ).run { line in print(line) }
            try DSPCommand.write(WAVFile(format: .realtime, samples: report.uplink).bytes, to: out)
            for line in report.summary(out: out) { print(line) }
        } catch let failure as DSPFailure {
            FileHandleStderr.print("jarvis-voice audio-check: \(failure.message)")
            throw ExitCode(failure.code)
        }
    }
}

/// One audio-check run: owns the pipeline, feeds it, drains it, collects what the report shows.
struct AudioCheck {
    let configuration: AudioPipelineConfiguration
    let play: String?
    let seconds: Int
    /// The conversation path (the chain runs from the first frame, 10 ms wakeups); false: the loops as
    /// between conversations.
    var conversation = true
    /// Between conversations: the conversation path from this many seconds of captured audio on (a tap).
    var listenAfter: Int?

    struct Report {
        var uplink: [Int16] = []
        var played = ""
        var scheduling = ""
        var opened: [String] = []
        var captureXruns = 0, playbackXruns = 0, captureReopens = 0, playbackReopens = 0
        var echoReductionDB = 0.0, lagMilliseconds = 0.0, driftPPM = 0.0, realignments = 0, referenceGain = 1
        var echoLevelDBFS = -90.0
        var speechLast = 0.0, speechMax = 0.0
        var uplinkOverflowSamples = 0

        func summary(out: String) -> [String] {
            let level = uplink.withUnsafeBufferPointer { LevelMeter.rmsDBFS($0) }
            return opened + [
                "played: \(played)",
                "recorded: \(out): \(uplink.count) samples (\(fixed(Double(uplink.count) / 24_000, 2)) s) of 24 kHz uplink, "
                    + "\(fixed(Double(level), 1)) dBFS RMS",
                "xruns: capture \(captureXruns), playback \(playbackXruns); reopens: capture \(captureReopens), playback \(playbackReopens)",
                "echo reduction: \(fixed(echoReductionDB, 1)) dB; reference lag: \(fixed(lagMilliseconds, 1)) ms; "
                    + "drift: \(fixed(driftPPM, 1)) ppm; realignments: \(realignments); reference gain: \(referenceGain)x",
                "speech probability: last \(fixed(speechLast, 2)), max \(fixed(speechMax, 2))",
                "uplink overflow: \(uplinkOverflowSamples) samples",
                "scheduling: \(scheduling)",
                "echo at the mic: \(fixed(echoLevelDBFS, 1)) dBFS while the speaker played",
                "verdict: \(verdict)"
            ]
        }

        /// Below this the mic hears the speaker no louder than a quiet room.
        static let echoPathFloorDBFS = -55.0
        /// The canceller alone (the suppressor after it takes more) removes at least this much when the
        /// mic and speaker are set up well.
        static let goodEchoReductionDB = 10.0

        /// good / poor / no echo path, with what to do about it.
        var verdict: String {
            if echoLevelDBFS < Self.echoPathFloorDBFS {
                return "no echo path (the mic hardly hears the speaker, \(fixed(echoLevelDBFS, 1)) dBFS: is the speaker on and "
                    + "loud enough, and is [audio] capture_device the microphone next to it?)"
            }
            if echoReductionDB >= Self.goodEchoReductionDB {
                return "good (the echo canceller removes \(fixed(echoReductionDB, 1)) dB of the speaker's echo)"
            }
            return "poor (the echo canceller removes only \(fixed(echoReductionDB, 1)) dB: use a hardware reference "
                + "([audio] reference_channel, 5 on the ReSpeaker), move the speaker away from the mics, or turn it down)"
        }
    }

    /// Runs for `seconds` of captured audio (bounded by `seconds` + 3 s of wall time). `progress`
    /// receives the loops' events as they happen. Throws `DSPFailure` (69) when a device never opens.
    func run(progress: (String) -> Void) throws -> Report {
        var report = Report()
        let pipeline: AudioPipeline
        do {
            pipeline = try AudioPipeline(configuration: configuration, logger: Logger(label: "audio-check"))
        } catch {
            throw DSPFailure(code: 70, message: "\(error)")
        }
        let source = try Source(play: play, mixer: pipeline.mixer)
        report.played = source.description

        let captureTarget = configuration.captureRate * seconds
        let uplinkTarget = CaptureChainConfiguration.uplinkSampleRate * seconds
        var uplink = [Int16](repeating: 0, count: uplinkTarget)
        var collected = 0
        var scratch = [Int16](repeating: 0, count: CaptureChainConfiguration.uplinkSampleRate / 10)

        // The conversation path: the chain runs from the first frame and both loops take the short path.
        pipeline.uplinkActive = conversation
        pipeline.conversationActive = conversation
        let notices: [String]
        do { notices = try pipeline.start() } catch { throw DSPFailure(code: 70, message: "\(error)") }
        defer { pipeline.stop() }
        if let priority = configuration.fifoPriority {
            report.scheduling =
                notices.isEmpty
                ? "SCHED_FIFO priority \(priority) granted to rt:capture and rt:playback"
                : notices.joined(separator: "; ")
        } else {
            report.scheduling = "normal (realtime_priority = 0)"
        }

        var captureOpened = false, playbackOpened = false
        let deadline = monotonicNanoseconds() + Int64(seconds + 3) * 1_000_000_000
        let listenFrames = listenAfter.map { configuration.captureRate * $0 }
        while collected < uplinkTarget || pipeline.captureLoop.status.frames < captureTarget {
            if let listenFrames, !pipeline.uplinkActive, pipeline.captureLoop.status.frames >= listenFrames {
                pipeline.uplinkActive = true
                pipeline.conversationActive = true
            }
            source.feed()
            let n = scratch.withUnsafeMutableBufferPointer { pipeline.uplink.read(into: $0) }
            let take = min(n, uplinkTarget - collected)
            for i in 0..<take { uplink[collected + i] = scratch[i] }
            collected += take
            for (stream, event, device) in events(pipeline) {
                let line = event.message(device: device, stream: stream)
                switch event.kind {
                case .opened:
                    if stream == .capture { captureOpened = true } else { playbackOpened = true }
                    report.opened.append(line)
                case .openFailed where stream == .capture ? !captureOpened : !playbackOpened:
                    let reason = ALSAError(function: event.function, device: device.name, stream: stream, code: event.code)
                    throw DSPFailure(code: 69, message: "\(stream) device \(device.name) cannot be opened: \(reason)")
                default:
                    progress(line)
                }
            }
            let speech = pipeline.captureStatistics.speechProbability
            report.speechMax = max(report.speechMax, speech)
            if monotonicNanoseconds() > deadline {
                guard captureOpened, playbackOpened else {
                    throw DSPFailure(code: 69, message: "the \(captureOpened ? "playback" : "capture") device did not open within \(seconds + 3) s")
                }
                progress("audio-check: stopped at the time limit before \(seconds) s of audio were captured")
                break
            }
            usleep(10_000)
        }
        let stats = pipeline.captureStatistics
        report.uplink = Array(uplink[0..<collected])
        report.captureXruns = pipeline.captureLoop.status.xruns
        report.playbackXruns = pipeline.playbackLoop.status.xruns
        report.captureReopens = pipeline.captureLoop.status.reopens
        report.playbackReopens = pipeline.playbackLoop.status.reopens
        report.echoReductionDB = stats.echoReductionDB
        report.echoLevelDBFS = stats.echoLevelDBFS
        report.lagMilliseconds = stats.lagMilliseconds
        report.driftPPM = stats.driftPPM
        report.realignments = stats.realignmentCount
        report.referenceGain = stats.referenceGain
        report.speechLast = stats.speechProbability
        report.uplinkOverflowSamples = stats.uplinkOverflowSamples
        return report
    }

    private func events(_ pipeline: AudioPipeline) -> [(PCMStream, AudioLoopEvent, PCMDevice)] {
        var all: [(PCMStream, AudioLoopEvent, PCMDevice)] = []
        while let e = pipeline.captureLoop.nextEvent() { all.append((.capture, e, configuration.captureDevice)) }
        while let e = pipeline.playbackLoop.nextEvent() { all.append((.playback, e, configuration.playbackDevice)) }
        return all
    }

    /// What is played: a WAV through the voice channel's resampling writer, or the earcons in turn
    /// (with half a second of silence between them) on the earcon channel.
    final class Source {
        let description: String
        private let samples: [Int16]
        private let writer: PlaybackChannelWriter?
        private let mixer: Mixer
        private let loops: Bool
        private var offset = 0
        private let channels: Int

        init(play: String?, mixer: Mixer) throws {
            self.mixer = mixer
            if let play {
                let bytes = try DSPCommand.readFile(play, role: "--play")
                let wav: WAVFile
                do { wav = try WAVFile(bytes: bytes) } catch {
                    throw DSPFailure(code: 65, message: "\(play): not a usable WAV file (\(error))")
                }
                guard (1...2).contains(wav.format.channels), wav.format.sampleRate >= 4_000 else {
                    throw DSPFailure(code: 65, message: "\(play): \(wav.format) is not 16-bit mono or stereo audio")
                }
                do {
                    writer = try PlaybackChannelWriter(mixer: mixer, channel: .voice, sourceFormat: wav.format)
                } catch {
                    throw DSPFailure(code: 70, message: "\(error)")
                }
                samples = wav.samples
                channels = wav.format.channels
                loops = false
                description = "\(play) (\(wav.format), \(fixed(Double(wav.frameCount) / Double(wav.format.sampleRate), 2)) s) on the voice channel"
            } else {
                let earcons = Earcons(format: mixer.format)
                let gap = [Int16](repeating: 0, count: mixer.format.frames(milliseconds: 500) * mixer.format.channels)
                samples = Earcon.allCases.flatMap { earcons[$0] + gap }
                writer = nil
                channels = mixer.format.channels
                loops = true
                description = "the earcons (\(Earcon.allCases.map(\.rawValue).joined(separator: ", "))), repeated, on the earcon channel"
            }
        }

        func feed() {
            guard offset < samples.count else {
                if loops { offset = 0 } else { return }
                return
            }
            let consumed = samples.withUnsafeBufferPointer { all -> Int in
                let rest = UnsafeBufferPointer(rebasing: all[offset...])
                if let writer { return writer.write(rest) }
                return mixer.write(rest, to: .earcon)
            }
            offset += consumed * channels
            if offset >= samples.count, let writer { _ = writer.finish() }
        }
    }
}

private func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = Int(scaled) - whole * Int(scale)
    let digits = String(fraction)
    let padded = String(repeating: "0", count: max(0, decimals - digits.count)) + digits
    return (value < 0 && scaled != 0 ? "-" : "") + (decimals > 0 ? "\(whole).\(padded)" : "\(whole)")
}

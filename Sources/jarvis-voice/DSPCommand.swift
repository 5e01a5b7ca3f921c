import ArgumentParser
import AudioCore
import AudioEngine
import Configuration
import EchoControl
import Glibc

/// `jarvis-voice dsp`: the service's capture chain, offline, on WAV files.
struct DSPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dsp",
        abstract: "Run the capture DSP chain (echo cancellation + preprocessing) offline on 16-bit mono WAV files.",
        discussion: """
            MIC and REFERENCE are 16-bit mono WAV at 16000 Hz; REFERENCE is what was played, nominally \
            aligned with MIC (the chain finds extra lag and clock drift itself). OUT has the length and \
            rate of MIC: the chain's latency is removed and the end is flushed with silence.
            """
    )

    @Option(
        name: [.short, .long], help: "Configuration file ([dsp] section). Default: built-in defaults.",
        completion: .file(extensions: ["toml"]))
    var config: String?

    @Option(help: "Microphone recording (16-bit mono WAV, 16 kHz).", completion: .file(extensions: ["wav"]))
    var mic: String

    @Option(help: "Echo reference, what the loudspeaker played (16-bit mono WAV, 16 kHz).", completion: .file(extensions: ["wav"]))
    var reference: String

    @Option(help: "Output WAV path.", completion: .file(extensions: ["wav"]))
    var out: String

    @Option(
        help:
            "Also write the near-end detector's verdict: one character per frame of MIC ('1' near-end speech, 'p' possible near-end speech only, '0' neither)."
    )
    var nearEndTrace: String?

    @Option(
        help:
            "Also write what the residual echo suppressor did: one character per frame of MIC ('-' far end silent; over a far end without speech's gaps 'M', 'm' where the suppression eased for a talker; over one with them 'S', 's')."
    )
    var suppressorTrace: String?

    @Flag(help: "Print the chain's estimates once per second of audio.")
    var verbose = false

    @Flag(
        help:
            "Run the recording through the chain once before the pass that is written, as a chain that has been playing for a while would meet it (converged filter, learnt room)."
    )
    var warm = false

    @Option(
        help: ArgumentHelp(
            "Run the written pass as between conversations until this many seconds into MIC (the chain keeps its canceller ready, "
                + "the output is silent), then as in a conversation: what a conversation starting there meets.",
            valueName: "SECONDS"))
    var listenAt: Double?

    func validate() throws {
        if let listenAt, !(listenAt >= 0) { throw ValidationError("--listen-at must be 0 or more seconds") }
    }

    func run() throws {
        do {
            try execute()
        } catch let failure as DSPFailure {
            // Configuration problems keep the `PATH:LINE: message` form of check-config.
            FileHandleStderr.print(failure.code == 78 ? failure.message : "jarvis-voice dsp: \(failure.message)")
            throw ExitCode(failure.code)
        }
    }

    private func execute() throws {
        // Without a file, the file's defaults (`[dsp]` is the chain's own configuration): what the
        // benchmarks measure is what the service runs.
        var chainConfiguration = CaptureChainConfiguration()
        if let config {
            do {
                chainConfiguration = try ConfigLoader.load(path: config, for: .audioOnly).dsp
            } catch {
                throw DSPFailure(code: 78, message: error.lines.joined(separator: "\n"))
            }
        }
        let micWAV = try Self.load(mic, role: "mic")
        let refWAV = try Self.load(reference, role: "reference")
        let output: [Int16]
        do {
            let frame = chainConfiguration.frameSize
            let frames = (micWAV.samples.count + frame - 1) / frame
            var trace = [UInt8](repeating: UInt8(ascii: "0"), count: frames)
            var suppressorStates = [UInt8](repeating: UInt8(ascii: "-"), count: frames)
            let listenFrame = listenAt.map { Int(($0 * Double(CaptureChainConfiguration.sampleRate) / Double(frame)).rounded(.up)) }
            output = try Self.run(
                mic: micWAV.samples, reference: refWAV.samples, configuration: chainConfiguration, verbose: verbose, warm: warm,
                listenFrame: listenFrame
            ) {
                start, activity, suppression in
                let index = (start + frame / 2) / frame
                guard index >= 0 && index < trace.count else { return }
                if activity.nearEndSpeech {
                    trace[index] = UInt8(ascii: "1")
                } else if activity.possibleNearEndSpeech {
                    trace[index] = UInt8(ascii: "p")
                }
                suppressorStates[index] = suppression.traceCharacter
            }
            if let nearEndTrace { try Self.write(trace, to: nearEndTrace) }
            if let suppressorTrace { try Self.write(suppressorStates, to: suppressorTrace) }
        } catch {
            throw DSPFailure(code: 70, message: "\(error)")
        }
        let wav = WAVFile(format: micWAV.format, samples: output)
        try Self.write(wav.bytes, to: out)
    }

    /// Runs the chain over whole signals. The reference is zero-padded or cut to the mic's length.
    /// Each output frame is written back at the mic position it came from (the chain's latency at
    /// that moment: mic delay line + one preprocessor frame), and the input is flushed with zeros,
    /// so the result lines up with `mic` sample for sample even after a re-alignment changed the mic
    /// delay (samples the chain skipped at that moment stay silent; repeated ones are overwritten).
    /// `perFrame` gets, per frame, the mic position of the frame the chain's near-end detector judged, its verdict
    /// and what the residual echo suppressor did.
    /// `warm`: the padded input goes through the same chain once first (its output dropped), as a chain
    /// that has been playing meets it; the flush of silence between the passes lets the canceller idle.
    /// `listenFrame`: the written pass's frames before it only keep the canceller ready
    /// (`CaptureChain.track`, as between conversations) and leave the output silent.
    static func run(
        mic: [Int16], reference: [Int16], configuration: CaptureChainConfiguration, verbose: Bool = false,
        warm: Bool = false, listenFrame: Int? = nil, perFrame: ((Int, NearEndActivity, SuppressionState) -> Void)? = nil
    ) throws(CaptureChainError) -> [Int16] {
        let chain = try CaptureChain(configuration: configuration)
        let frame = chain.frameSize
        let flush = chain.latencySamples + configuration.maxReferenceLagMs * CaptureChainConfiguration.sampleRate / 1000 + frame
        let frames = (mic.count + flush + frame - 1) / frame
        var micPadded = mic + [Int16](repeating: 0, count: frames * frame - mic.count)
        var refPadded = Array(reference.prefix(mic.count))
        refPadded += [Int16](repeating: 0, count: frames * frame - refPadded.count)
        var result = [Int16](repeating: 0, count: mic.count)
        var block = [Int16](repeating: 0, count: frame)
        // Mic delay at each of the last frames: an output frame comes from `outputDelayFrames` frames ago.
        var delays = [Int](repeating: chain.micDelaySamples, count: chain.outputDelayFrames + 1)
        let framesPerSecond = CaptureChainConfiguration.sampleRate / frame
        micPadded.withUnsafeMutableBufferPointer { m in
            refPadded.withUnsafeMutableBufferPointer { r in
                block.withUnsafeMutableBufferPointer { o in
                    if warm {
                        for f in 0..<frames {
                            let range = f * frame..<(f + 1) * frame
                            chain.process(mic: UnsafeBufferPointer(rebasing: m[range]), reference: UnsafeBufferPointer(rebasing: r[range]), output: o)
                        }
                        delays = [Int](repeating: chain.micDelaySamples, count: chain.outputDelayFrames + 1)
                    }
                    for f in 0..<frames {
                        let delay = chain.micDelaySamples
                        let range = f * frame..<(f + 1) * frame
                        if let listenFrame, f < listenFrame {
                            chain.track(mic: UnsafeBufferPointer(rebasing: m[range]), reference: UnsafeBufferPointer(rebasing: r[range]))
                            delays.removeFirst()
                            delays.append(delay)
                            continue
                        }
                        chain.process(mic: UnsafeBufferPointer(rebasing: m[range]), reference: UnsafeBufferPointer(rebasing: r[range]), output: o)
                        // The preprocessor (and the suppressor) delay by a frame each: this output is an earlier frame's aligned mic.
                        delays.removeFirst()
                        delays.append(delay)
                        let start = (f - chain.outputDelayFrames) * frame - delays[0]
                        perFrame?(f * frame - delay, chain.nearEnd, chain.suppression)
                        for i in 0..<frame where start + i >= 0 && start + i < result.count { result[start + i] = o[i] }
                        if verbose && f % framesPerSecond == 0 {
                            FileHandleStderr.print(
                                "dsp: t=\(f / framesPerSecond)s lag=\(Int(chain.estimatedLagMilliseconds.rounded()))ms "
                                    + "drift=\(Int(chain.estimatedDriftPPM.rounded()))ppm erle=\(Int(chain.echoReturnLossEnhancementDB.rounded()))dB "
                                    + "micDelay=\(chain.micDelaySamples) fill=\(chain.referenceFillSamples) speech=\(chain.speechProbability)")
                        }
                    }
                }
            }
        }
        let lag = chain.estimatedLagMilliseconds, ppm = chain.estimatedDriftPPM, erle = chain.echoReturnLossEnhancementDB
        FileHandleStderr.print(
            "dsp: \(mic.count) samples, reference lag \(Int(lag.rounded())) ms, "
                + "drift \(Int(ppm.rounded())) ppm, realignments \(chain.realignmentCount), reference gain \(chain.referenceGain)x, linear ERLE \(Int(erle.rounded())) dB"
        )
        return result
    }

    static func load(_ path: String, role: String) throws -> WAVFile {
        let bytes = try readFile(path, role: role)
        let wav: WAVFile
        do { wav = try WAVFile(bytes: bytes) } catch {
            throw DSPFailure(code: 65, message: "\(path): not a usable WAV file (\(error))")
        }
        guard wav.format.channels == 1 else {
            throw DSPFailure(code: 65, message: "\(path): \(role) has \(wav.format.channels) channels, expected mono")
        }
        guard wav.format.sampleRate == CaptureChainConfiguration.sampleRate else {
            throw DSPFailure(
                code: 65, message: "\(path): \(role) is \(wav.format.sampleRate) Hz, expected \(CaptureChainConfiguration.sampleRate) Hz")
        }
        return wav
    }

    static func readFile(_ path: String, role: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw DSPFailure(code: 66, message: "\(path): cannot open \(role) file: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { bytes += chunk[0..<n] }
            if n < chunk.count {
                if ferror(file) != 0 { throw DSPFailure(code: 66, message: "\(path): read error") }
                break
            }
        }
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else {
            throw DSPFailure(code: 73, message: "\(path): cannot create output file: \(String(cString: strerror(errno)))")
        }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == bytes.count, closed == 0 else {
            throw DSPFailure(code: 74, message: "\(path): write failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// A failure of `dsp` with its sysexits code (65 EX_DATAERR, 66 EX_NOINPUT, 70 EX_SOFTWARE,
/// 73 EX_CANTCREAT, 74 EX_IOERR, 78 EX_CONFIG).
struct DSPFailure: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { message }
}

enum FileHandleStderr {
    static func print(_ line: String) {
        let text = line + "\n"
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}

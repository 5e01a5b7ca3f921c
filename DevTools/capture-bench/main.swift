// Capture-chain benchmark: the service's exact `CaptureChain` (echo canceller + preprocessor +
// 16 -> 24 kHz uplink resampler, `process(mic:reference:output:uplink:)`) over a 16 kHz mono
// mic/reference WAV pair, writing the 24 kHz uplink as raw S16_LE. Benchmarks/capture-chain/run.sh
// runs it under callgrind next to the C baseline (speex_chain.c), which does the same speexdsp work.
// Usage: capture-bench MIC.wav REF.wav OUT.raw [full|plain|track|wake]
//   full  (default): delay estimator (max_reference_lag_ms 500), drift compensation and the residual
//                    echo suppressor on
//   track: the defaults as between conversations while the far end plays (`CaptureChain.track`: the
//          canceller, estimator, drift and level matcher adapt until the filter explains the echo, then
//          rest; no suppressor, preprocessor or uplink)
//   wake:  `track` for every frame but the last, which a conversation processes (the catch-up on what
//          the chain rested through and the suppressor's lookback, then the frame)
//   plain: max_reference_lag_ms = 0, drift_compensation = false, residual_echo_suppressor = false,
//          match_reference_level = false
//          (the C baseline's work only)
import AudioCore
import EchoControl
import Glibc

func fail(_ message: String) -> Never {
    let line = Array("capture-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func readWAV(_ path: String) -> [Int16] {
    guard let file = fopen(path, "rb") else { fail("\(path): cannot open") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    let wav: WAVFile
    do { wav = try WAVFile(bytes: bytes) } catch { fail("\(path): \(error)") }
    guard wav.format == .processing else { fail("\(path): \(wav.format), expected 16000 Hz mono") }
    return wav.samples
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    fail("usage: capture-bench MIC.wav REF.wav OUT.raw [full|plain|track|wake]")
}
let mode = arguments.count > 4 ? arguments[4] : "full"
var configuration = CaptureChainConfiguration()
switch mode {
case "full", "track", "wake": break
case "plain":
    configuration.maxReferenceLagMs = 0
    configuration.driftCompensation = false
    configuration.residualEchoSuppressor = false
    configuration.matchReferenceLevel = false
default: fail("mode must be full, plain, track or wake")
}
let mic = readWAV(arguments[1])
let reference = readWAV(arguments[2])
guard let out = fopen(arguments[3], "wb") else { fail("\(arguments[3]): cannot create") }

let chain: CaptureChain
do { chain = try CaptureChain(configuration: configuration) } catch { fail("\(error)") }
let frame = chain.frameSize
let frames = min(mic.count, reference.count) / frame
let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frame)
let uplink = UnsafeMutableBufferPointer<Int16>.allocate(capacity: chain.uplinkFrameSize + 16)
output.initialize(repeating: 0)
uplink.initialize(repeating: 0)
var uplinkSamples = 0
mic.withUnsafeBufferPointer { m in
    reference.withUnsafeBufferPointer { r in
        for f in 0..<frames {
            let range = f * frame..<(f + 1) * frame
            let tracks = mode == "track" || (mode == "wake" && f < frames - 1)
            let n =
                tracks
                ? chain.track(mic: UnsafeBufferPointer(rebasing: m[range]), reference: UnsafeBufferPointer(rebasing: r[range]), uplink: uplink)
                : chain.process(
                    mic: UnsafeBufferPointer(rebasing: m[range]), reference: UnsafeBufferPointer(rebasing: r[range]),
                    output: output, uplink: uplink)
            fwrite(uplink.baseAddress, 2, n, out)
            uplinkSamples += n
        }
    }
}
fclose(out)
print(
    "mode=\(mode) frames=\(frames) uplink_samples=\(uplinkSamples) erle_db=\(chain.echoReturnLossEnhancementDB) lag_ms=\(chain.estimatedLagMilliseconds)"
)

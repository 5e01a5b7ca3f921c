// Decode benchmark: an MP3 file through MP3Decoder and (mode `mix`, the default) PlaybackChannelWriter's
// speexdsp resample into the mixer's media channel, rendering the mixer as a playback thread would.
// Mode `level`: decoding and the loudness leveler (`LoudnessLeveler`, as `LevelingMediaOutput` runs it), no mixer.
// Usage: media-bench FILE.mp3 [decode|mix|level] [RESAMPLER_QUALITY 0...10, default 5]   (Benchmarks/media/run.sh runs it under callgrind)
import AudioCore
import AudioEngine
import Codecs
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 2, let file = fopen(arguments[1], "rb") else {
    print("usage: media-bench FILE.mp3 [decode|mix|level]")
    exit(64)
}
let mode = arguments.count > 2 ? arguments[2] : "mix"
let quality = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
var compressed: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 65_536)
while true {
    let count = fread(&chunk, 1, chunk.count, file)
    if count <= 0 { break }
    compressed += chunk[0..<count]
}
fclose(file)

/// Decodes `compressed`; in `mix` mode also resamples into the mixer and renders it in 10 ms periods.
final class Bench {
    let mixer = Mixer(configuration: Mixer.Configuration(format: AudioFormat(sampleRate: 48_000, channels: 2)))
    let period = 480  // 10 ms at 48 kHz
    let output: UnsafeMutableBufferPointer<Int16>
    var writer: PlaybackChannelWriter?
    var decodedFrames = 0
    var sourceFormat: AudioFormat?
    let mix: Bool
    let level: Bool
    let quality: Int
    var leveler: LoudnessLeveler?
    var scratch = [Int16](repeating: 0, count: 1 << 16)

    init(mix: Bool, level: Bool, quality: Int) {
        self.mix = mix
        self.level = level
        self.quality = quality
        output = .allocate(capacity: period * 2)
    }

    deinit { output.deallocate() }

    func deliver(_ samples: UnsafeBufferPointer<Int16>, _ format: AudioFormat) {
        if writer?.sourceFormat != format {
            writer = try? PlaybackChannelWriter(mixer: mixer, channel: .media, sourceFormat: format, quality: quality)
        }
        guard let writer else { return }
        var offset = 0
        while offset < samples.count {
            let used = writer.write(UnsafeBufferPointer(rebasing: samples[offset...])) * format.channels
            offset += used
            if used == 0 { mixer.render(into: output) }
        }
    }

    func level(_ samples: UnsafeBufferPointer<Int16>, _ format: AudioFormat) {
        if leveler?.format != format { leveler = LoudnessLeveler(format: format, dualMono: false) }
        scratch.withUnsafeMutableBufferPointer { buffer in
            let chunk = UnsafeMutableBufferPointer(rebasing: buffer[0..<min(buffer.count, samples.count)])
            _ = chunk.initialize(from: samples)
            leveler?.process(chunk)
        }
    }

    func run(_ compressed: [UInt8]) throws(CodecError) {
        let decoder = try MP3Decoder()
        var offset = 0
        while offset < compressed.count {
            let end = min(offset + 4_096, compressed.count)
            let piece = Array(compressed[offset..<end])
            var failure: CodecError?
            piece.withUnsafeBytes { raw in
                do throws(CodecError) {
                    try decoder.decode(raw) { block in
                        decodedFrames += block.frameCount
                        sourceFormat = block.format
                        if mix { deliver(block.samples, block.format) }
                        if level { self.level(block.samples, block.format) }
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            offset = end
        }
    }
}

let bench = Bench(mix: mode == "mix", level: mode == "level", quality: quality)
do {
    try bench.run(compressed)
} catch {
    print("media-bench: \(error)")
    exit(1)
}
let seconds = Double(bench.decodedFrames) / Double(bench.sourceFormat?.sampleRate ?? 1)
print("mode=\(mode) quality=\(quality) format=\(bench.sourceFormat.map { "\($0)" } ?? "none") frames=\(bench.decodedFrames) audio_seconds=\(seconds)")

// Decode benchmark: a compressed file (MP3, AAC in ADTS or MP4/M4A, Ogg Opus, Ogg Vorbis, FLAC or Ogg FLAC,
// chosen by `AudioCodec.sniff` from its first bytes) through the product's decoder and (mode `mix`, the
// default) PlaybackChannelWriter's resample into the mixer's media channel, rendering the mixer as a
// playback thread would. Mode `level`: decoding and the loudness leveler (`LoudnessLeveler`, as
// `LevelingMediaOutput` runs it), no mixer.
// Usage: media-bench FILE [decode|mix|level] [RESAMPLER_QUALITY 0...10, default 5]   (Benchmarks/media/run.sh runs it under callgrind)
import AudioCore
import AudioEngine
import Codecs
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 2, let file = fopen(arguments[1], "rb") else {
    print("usage: media-bench FILE [decode|mix|level] [RESAMPLER_QUALITY]")
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
guard let codec = AudioCodec.sniff(Array(compressed.prefix(4_096))) else {
    print("media-bench: \(arguments[1]): not a format the product plays (\(AudioCodec.playableNames))")
    exit(65)
}

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

    func consume(_ block: PCMBlock) {
        decodedFrames += block.frameCount
        sourceFormat = block.format
        if mix { deliver(block.samples, block.format) }
        if level { self.level(block.samples, block.format) }
    }

    /// Feeds the file in 4 KiB reads as a network source would, reading from wherever the decoder asks
    /// (an MP4 whose index is after its audio: an HTTP Range request), then tells it the file ended.
    func run(_ compressed: [UInt8], codec: AudioCodec) throws(CodecError) {
        let decoder = try codec.makeDecoder()
        var offset = 0
        var requests = 0
        while true {
            if let wanted = decoder.wantedOffset, requests < 10 {
                requests += 1
                decoder.seek(to: wanted)
                offset = wanted
                continue
            }
            guard offset < compressed.count else { break }
            let end = min(offset + 4_096, compressed.count)
            var failure: CodecError?
            compressed[offset..<end].withUnsafeBytes { raw in
                do throws(CodecError) {
                    try decoder.decode(raw) { consume($0) }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            offset = end
        }
        try decoder.finish { consume($0) }
    }
}

let bench = Bench(mix: mode == "mix", level: mode == "level", quality: quality)
do {
    try bench.run(compressed, codec: codec)
} catch {
    print("media-bench: \(error)")
    exit(1)
}
let seconds = Double(bench.decodedFrames) / Double(bench.sourceFormat?.sampleRate ?? 1)
print(
    "codec=\(codec.rawValue) mode=\(mode) quality=\(quality) format=\(bench.sourceFormat.map { "\($0)" } ?? "none") "
        + "frames=\(bench.decodedFrames) audio_seconds=\(seconds)")

/// One parser of outside input, fed whatever libFuzzer makes. A target only has to not trap, not hang
/// and not touch bad memory; results are consumed so the optimizer cannot drop the work.
enum FuzzTarget: String, CaseIterable, Sendable {
    case toml, feed, dates, playlist, hls, icy, sse, termllm, ogg, adts, vorbis, flac, mp4, ts, wav, realtime, control, somafm, url
    case snapcast, snapaudio, snapcontrol

    func run(_ bytes: [UInt8]) {
        switch self {
        case .toml: ConfigFuzzing.toml(bytes)
        case .feed: MediaFuzzing.feed(bytes)
        case .dates: MediaFuzzing.dates(bytes)
        case .playlist: MediaFuzzing.playlist(bytes)
        case .hls: MediaFuzzing.hls(bytes)
        case .icy: MediaFuzzing.icy(bytes)
        case .somafm: MediaFuzzing.somafm(bytes)
        case .url: MediaFuzzing.url(bytes)
        case .sse: JarvisFuzzing.sse(bytes)
        case .termllm: JarvisFuzzing.termLLM(bytes)
        case .ogg: CodecFuzzing.ogg(bytes)
        case .adts: CodecFuzzing.adts(bytes)
        case .vorbis: CodecFuzzing.vorbis(bytes)
        case .flac: CodecFuzzing.flac(bytes)
        case .mp4: CodecFuzzing.mp4(bytes)
        case .ts: CodecFuzzing.ts(bytes)
        case .wav: CodecFuzzing.wav(bytes)
        case .snapaudio: CodecFuzzing.snapaudio(bytes)
        case .realtime: RealtimeFuzzing.serverEvent(bytes)
        case .control: ControlFuzzing.request(bytes)
        case .snapcast: SnapcastFuzzing.stream(bytes)
        case .snapcontrol: SnapcastFuzzing.control(bytes)
        }
    }
}

/// Keeps a value alive past the optimizer.
@inline(never)
func keep<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Splits `bytes` into chunks whose sizes come from the first byte, so stream parsers see their input
/// cut at fuzzer-chosen places (a line or page split across reads).
func chunks(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    guard let first = bytes.first else { return [] }
    let step = Int(first % 31) + 1
    var result: [ArraySlice<UInt8>] = []
    var start = 1
    while start < bytes.count {
        let end = min(start + step, bytes.count)
        result.append(bytes[start..<end])
        start = end
    }
    return result
}

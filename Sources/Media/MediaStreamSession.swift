import AudioCore
import Basics
import Codecs

/// One stream run's state, shared by the progressive and the HLS source: decoder, pending PCM,
/// prebuffer, back-pressure into the sink, titles, and the file position for Range requests.
struct MediaStreamSession {
    let sink: any PCMSink
    let settings: MediaStreamSettings
    let progress: MediaStreamProgress?
    let onEvent: (MediaStreamEvent) -> Void
    var decoder: (any StreamDecoder)?
    var codec: AudioCodec?
    var format: AudioFormat?
    var pending: [Int16] = []
    var pendingFormat: AudioFormat?
    /// Blocks of another format wait here until `pending` has been played.
    var queued: [(AudioFormat, [Int16])] = []
    var playing = false
    /// `.playing` is told once the output has taken the first audio after the prebuffer.
    var tellPlaying = false
    var lastTitle: String?
    var fileLength: Int?
    var fileOffset = 0
    /// Some audio was decoded since the run started.
    var decodedAudio = false
    /// The next connection is a seek the decoder asked for.
    var seeking = false
    /// Failed attempts in a row (`waitToRetry`).
    private var failures = 0

    init(sink: any PCMSink, settings: MediaStreamSettings, progress: MediaStreamProgress?, onEvent: @escaping (MediaStreamEvent) -> Void) {
        self.sink = sink
        self.settings = settings
        self.progress = progress
        self.onEvent = onEvent
    }

    var resumable: Bool { fileLength != nil && decoder != nil }
    var hasPending: Bool { !pending.isEmpty || !queued.isEmpty }

    mutating func startFile(length: Int?) {
        fileLength = length
        fileOffset = 0
    }

    func reportProgress() {
        progress?.update(byteOffset: fileOffset, fileLength: fileLength)
    }

    /// The next connection asks for the file from `offset`, for the decoder (not a failure).
    mutating func seek(to offset: Int) {
        fileOffset = offset
        seeking = true
        progress?.seeked(to: offset)
    }

    /// A dropped connection or a failed request: counted (one that had delivered audio starts the count
    /// again), told as `.reconnecting`, and waited out with the backoff. False, with `.failed` told, when it
    /// is one too many; false when cancelled.
    mutating func waitToRetry(
        _ reason: String, deliveredAudio: Bool, url: MediaURL, sleep: (Duration) async throws -> Void, jitterUnit: () -> Double
    ) async -> Bool {
        if Task.isCancelled { return false }
        rebuffer()
        failures = deliveredAudio ? 1 : failures + 1
        guard failures <= settings.maxConsecutiveFailures else {
            onEvent(.failed("\(url) failed \(failures - 1) times in a row; last error: \(reason)"))
            return false
        }
        let delay = settings.reconnect.delay(attempt: failures, unit: jitterUnit())
        onEvent(.reconnecting(attempt: failures, after: delay, reason: reason))
        do { try await sleep(delay) } catch { return false }
        return true
    }

    /// Audio flowed again: the next failure is the first of a new count.
    mutating func recovered() {
        failures = 0
    }

    /// After a drop: the prebuffer fills again before `.playing` is told again.
    mutating func rebuffer() {
        playing = false
    }

    /// A new stream (or a live reconnect): fresh decoder, rebuffer.
    mutating func begin(codec: AudioCodec) throws(CodecError) {
        self.codec = codec
        decoder = try codec.makeDecoder()
        playing = false
    }

    mutating func decode(_ audio: UnsafeRawBufferPointer) throws(CodecError) {
        guard let decoder else { return }
        try decoder.decode(audio) { block in take(block) }
        if let title = decoder.streamTitle { announce(title: title) }
        if let loudness = decoder.taggedLoudness { sink.setTaggedLoudness(loudness) }
    }

    /// The file (or an on-demand playlist) ended: what the decoder held back is played too, then the sink
    /// is told and `.ended`; or `.failed` when no audio could be decoded at all.
    mutating func finish(url: MediaURL) async {
        do throws(CodecError) { try decoder?.finish { block in take(block) } } catch {
            onEvent(.failed(error.description))
            return
        }
        guard decodedAudio else {
            onEvent(.failed("\(url) ended without any audio that could be decoded" + (codec.map { " as \($0.name)" } ?? "")))
            return
        }
        await drainAll()
        if Task.isCancelled { return }
        sink.finish()
        onEvent(.ended)
    }

    private mutating func take(_ block: PCMBlock) {
        decodedAudio = true
        progress?.addDecoded(frames: block.samples.count / max(1, block.format.channels), sampleRate: block.format.sampleRate)
        if block.format != format {
            format = block.format
            onEvent(.format(block.format))
        }
        if pendingFormat == nil || (pendingFormat == block.format && queued.isEmpty) {
            pendingFormat = block.format
            pending.append(contentsOf: block.samples)
        } else if let last = queued.indices.last, queued[last].0 == block.format {
            queued[last].1.append(contentsOf: block.samples)
        } else {
            queued.append((block.format, Array(block.samples)))
        }
    }

    mutating func announce(title: String) {
        guard title != lastTitle else { return }
        lastTitle = title
        onEvent(.title(title))
    }

    private var pendingMilliseconds: Int {
        guard let format = pendingFormat else { return 0 }
        let frames = pending.count / format.channels + queued.reduce(0) { $0 + $1.1.count / $1.0.channels }
        return format.milliseconds(frames: frames)
    }

    /// Writes pending audio, waiting while the sink is full, once the prebuffer has filled.
    mutating func drain() async {
        if !playing {
            let prebufferMS = Int(settings.prebuffer.wholeMilliseconds)
            guard pendingMilliseconds >= prebufferMS else { return }
            playing = true
            tellPlaying = true
        }
        await drainAll()
    }

    mutating func drainAll() async {
        while let format = pendingFormat, !Task.isCancelled {
            if pending.isEmpty {
                guard !queued.isEmpty else { return }
                let (nextFormat, samples) = queued.removeFirst()
                pendingFormat = nextFormat
                pending = samples
                continue
            }
            let accepted = pending.withUnsafeBufferPointer { sink.write($0, format: format) }
            let used = accepted * format.channels
            if used > 0 { pending.removeFirst(min(used, pending.count)) }
            if tellPlaying, accepted > 0 {
                tellPlaying = false
                onEvent(.playing)
            }
            if !pending.isEmpty, accepted == 0 {
                try? await Task.sleep(for: settings.backPressurePoll)
            }
        }
    }
}

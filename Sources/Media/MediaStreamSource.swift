import AudioCore
import Basics
import Codecs
import HTTP

/// Plays one http(s) stream into a `PCMSink`: HTTP (libcurl) → ICY split → MP3/Opus decoder → sink,
/// with a prebuffer, back-pressure, now-playing titles, and recovery:
/// - a live stream that drops or ends is reconnected with jittered exponential backoff;
/// - a finite file (podcast) that drops is resumed with `Range: bytes=N-` where it stopped;
/// - permanent errors (4xx, not audio) fail at once; the player is told about every retry so it can
///   say so after repeated failures (never silence without a word).
/// Run it in the task that owns the playback; cancelling that task stops it.
public struct MediaStreamSource: Sendable {
    public let url: MediaURL
    public let client: HTTPClient
    public var settings: MediaStreamSettings
    /// Backoff sleep (tests inject a recorder); default `Task.sleep`.
    public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// Where each reconnect delay falls within the backoff's jitter, 0...1 (`Backoff.delay(attempt:unit:)`);
    /// random by default.
    public var jitterUnit: @Sendable () -> Double = { Double.random(in: 0...1) }
    /// Byte offset to start a finite file at (a podcast resumed where it stopped): the first request
    /// asks for `Range: bytes=N-`; a server that ignores Range has the first N bytes skipped. 0 = from the start.
    public var startOffset = 0
    /// Where the run stands (bytes read, file length, seconds decoded), for the player's positions.
    public var progress: MediaStreamProgress?

    public init(url: MediaURL, client: HTTPClient, settings: MediaStreamSettings = MediaStreamSettings()) {
        self.url = url
        self.client = client
        self.settings = settings
    }

    private enum Outcome {
        case finished
        case retry(String, deliveredAudio: Bool)
        case fatal(String)
    }

    /// Streams until the file ends, a permanent error, too many failures, or task cancellation.
    public func run(into sink: any PCMSink, onEvent: @escaping (MediaStreamEvent) -> Void) async {
        var session = Session(sink: sink, settings: settings, progress: progress, onEvent: onEvent)
        var failures = 0
        while !Task.isCancelled {
            let outcome = await connectOnce(&session)
            switch outcome {
            case .finished:
                do throws(CodecError) { try session.finishDecoding() } catch {
                    onEvent(.failed(error.description))
                    return
                }
                guard session.decodedAudio else {
                    let codec = session.codec.map { " as \($0.name)" } ?? ""
                    onEvent(.failed("\(url) ended without any audio that could be decoded\(codec)"))
                    return
                }
                await session.drainAll()
                if Task.isCancelled { return }
                sink.finish()
                onEvent(.ended)
                return
            case .fatal(let reason):
                onEvent(.failed(reason))
                return
            case .retry(let reason, let deliveredAudio):
                if Task.isCancelled { return }
                session.rebuffer()
                failures = deliveredAudio ? 1 : failures + 1
                guard failures <= settings.maxConsecutiveFailures else {
                    onEvent(.failed("\(url) failed \(failures - 1) times in a row; last error: \(reason)"))
                    return
                }
                let delay = settings.reconnect.delay(attempt: failures, unit: jitterUnit())
                onEvent(.reconnecting(attempt: failures, after: delay, reason: reason))
                do { try await sleep(delay) } catch { return }
            }
        }
    }

    private func connectOnce(_ session: inout Session) async -> Outcome {
        var headers = [HTTPHeader("User-Agent", settings.userAgent), HTTPHeader("Icy-MetaData", "1")]
        // A run's first connection (no decoder yet) starts at `startOffset`; a live reconnect at 0.
        let resumeOffset = session.resumable ? session.fileOffset : (session.decoder == nil ? max(0, startOffset) : 0)
        if resumeOffset > 0 { headers.append(HTTPHeader("Range", "bytes=\(resumeOffset)-")) }
        let request = HTTPRequest(
            url: url.absoluteString, headers: headers, connectTimeout: settings.connectTimeout,
            inactivityTimeout: settings.inactivityTimeout, maxRedirects: settings.limits.maxRedirects,
            maxBufferedBytes: settings.maxBufferedBytes)
        let response: HTTPResponse
        do {
            response = try await client.execute(request)
        } catch {
            return .retry(describe(error), deliveredAudio: false)
        }
        defer { response.cancel() }
        let status = response.status
        guard status == 200 || status == 206 else {
            let permanent = (400..<500).contains(status) && status != 408 && status != 429
            return permanent ? .fatal("\(url) answered HTTP \(status)") : .retry("HTTP \(status)", deliveredAudio: false)
        }
        let icy = IcyHeaders(header: { response.head.value(for: $0) }, limits: settings.limits)
        let contentLength = response.head.value(for: "content-length").flatMap { Int($0) }
        var skip = 0
        if resumeOffset > 0, status == 200 {
            skip = resumeOffset  // the server ignored Range: throw away what we already played
        }
        if resumeOffset == 0 || !session.resumable {
            let length = icy.metaInterval == nil ? contentLength : nil
            if resumeOffset > 0 {
                // First connection at `startOffset`: a 206 body is the rest of the file; after a 200 the
                // skipped bytes count as read.
                session.startFile(length: status == 206 ? length.map { $0 + resumeOffset } : length)
                session.fileOffset = resumeOffset
            } else {
                session.startFile(length: length)
            }
        }
        session.reportProgress()
        var demuxer = IcyDemuxer(
            metaInterval: icy.metaInterval, maxTitleCharacters: settings.limits.maxTitleCharacters,
            maxMetadataBytes: settings.limits.maxMetadataBytes)
        var deliveredAudio = false
        var announced = resumeOffset > 0 && session.decoder != nil
        if announced { session.onEvent(.connected(codec: session.codec ?? .mp3, name: icy.name, resumedAt: resumeOffset)) }
        do {
            for try await chunk in response.body {
                var bytes = chunk[...]
                if skip > 0 {
                    let dropped = min(skip, bytes.count)
                    bytes = bytes.dropFirst(dropped)
                    skip -= dropped
                    if bytes.isEmpty { continue }
                }
                if !announced {
                    announced = true
                    guard let codec = AudioCodec.of(contentType: icy.contentType, firstBytes: firstAudio(bytes, demuxer: demuxer)) else {
                        let type = icy.contentType ?? "none"
                        return .fatal("\(url) did not return audio (Content-Type \(type))")
                    }
                    do throws(CodecError) { try session.begin(codec: codec) } catch { return .fatal(error.description) }
                    session.onEvent(.connected(codec: codec, name: icy.name, resumedAt: resumeOffset > 0 ? resumeOffset : nil))
                }
                // A chunk holds everything the HTTP client buffered: up to `maxBufferedBytes` once the
                // sink has fallen behind a live stream (every underrun delays it). Decoding it whole
                // would hold that backlog as PCM (16 s of 44.1 kHz stereo per 256 KiB at 128 kbit/s),
                // so it is decoded a slice at a time, each played into the sink before the next.
                var rest = bytes
                while !rest.isEmpty {
                    let slice = rest.prefix(max(1, settings.decodeSliceBytes))
                    rest = rest.dropFirst(slice.count)
                    session.fileOffset += slice.count
                    session.reportProgress()
                    let failure: CodecError? = slice.withUnsafeBytes { raw in
                        var failure: CodecError?
                        demuxer.push(
                            raw,
                            audio: { audio in
                                guard failure == nil else { return }
                                do throws(CodecError) { try session.decode(audio) } catch { failure = error }
                            },
                            onMetadata: { meta in
                                if let title = meta.streamTitle { session.announce(title: title) }
                            })
                        return failure
                    }
                    if let failure {
                        // A codec this release cannot play will not play on a retry either.
                        if failure.kind == .unsupported { return .fatal(failure.description) }
                        return .retry(failure.description, deliveredAudio: deliveredAudio)
                    }
                    if session.hasPending { deliveredAudio = true }
                    await session.drain()
                    if Task.isCancelled { return .finished }
                }
            }
        } catch {
            return .retry(describe(error), deliveredAudio: deliveredAudio)
        }
        if let length = session.fileLength {
            return session.fileOffset >= length
                ? .finished
                : .retry("connection closed at byte \(session.fileOffset) of \(length)", deliveredAudio: deliveredAudio)
        }
        return .retry("the stream ended", deliveredAudio: deliveredAudio)
    }

    private func firstAudio(_ bytes: ArraySlice<UInt8>, demuxer: IcyDemuxer) -> [UInt8] {
        var copy = demuxer
        var audio: [UInt8] = []
        bytes.withUnsafeBytes { raw in copy.push(raw, audio: { audio.append(contentsOf: $0) }, onMetadata: { _ in }) }
        return audio
    }

    /// The owner's words for a transport failure (the curl call and code are the client's debug line).
    private func describe(_ error: any Error) -> String {
        (error as? HTTPError)?.plainDescription ?? "\(error)"
    }
}

/// Per-run state: decoder, pending PCM, prebuffer, file position for Range resume.
private struct Session {
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

    /// The file ended: what the decoder held back joins the pending audio.
    mutating func finishDecoding() throws(CodecError) {
        try decoder?.finish { block in take(block) }
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

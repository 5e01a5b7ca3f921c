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
        case startOffsetRefused
        /// The decoder needs the file from this offset (an MP4's index after its audio): a new Range request.
        case seek(Int)
    }

    /// Streams until the file ends, a permanent error, too many failures, or task cancellation.
    public func run(into sink: any PCMSink, onEvent: @escaping (MediaStreamEvent) -> Void) async {
        var session = MediaStreamSession(sink: sink, settings: settings, progress: progress, onEvent: onEvent)
        while !Task.isCancelled {
            let outcome = await connectOnce(&session)
            switch outcome {
            case .finished:
                await session.finish(url: url)
                return
            case .fatal(let reason):
                onEvent(.failed(reason))
                return
            case .seek(let offset):
                session.seek(to: offset)
            case .startOffsetRefused:
                onEvent(.startOffsetRefused)
                return
            case .retry(let reason, let deliveredAudio):
                let again = await session.waitToRetry(reason, deliveredAudio: deliveredAudio, url: url, sleep: sleep, jitterUnit: jitterUnit)
                if !again { return }
            }
        }
    }

    private func connectOnce(_ session: inout MediaStreamSession) async -> Outcome {
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
            if status == 416, resumeOffset > 0, session.decoder == nil { return .startOffsetRefused }
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
        var announced = session.decoder != nil && (resumeOffset > 0 || session.seeking)
        if announced {
            session.decoder?.seek(to: resumeOffset)
            if !session.seeking { session.onEvent(.connected(codec: session.codec ?? .mp3, name: icy.name, resumedAt: resumeOffset)) }
        }
        session.seeking = false
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
                    if resumeOffset > 0 { session.decoder?.seek(to: resumeOffset) }
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
                    if let wanted = session.decoder?.wantedOffset {
                        guard session.fileLength != nil else {
                            return .fatal(
                                "\(url) keeps its index after its audio, and its server does not say how long it is, so it cannot be played")
                        }
                        return .seek(wanted)
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

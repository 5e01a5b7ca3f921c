import AudioCore
import Basics
import Codecs
import HTTP

/// Plays an HLS stream (RFC 8216) into a `PCMSink`: the playlist (a master playlist's audio variant,
/// chosen by bandwidth), then its segments in order, MPEG-TS (AAC or MP3, timed ID3 titles), packed
/// audio (AAC with an ID3 tag) or fragmented MP4 (after its `#EXT-X-MAP` index), through one decoder so
/// segment joins are seamless. A live playlist is
/// reloaded as it grows (joining three segments from its end); an on-demand one plays to its end. A
/// failed reload or segment is retried with the same backoff, limits and events as a progressive stream.
public struct HLSStreamSource: Sendable {
    public let url: MediaURL
    public let fetcher: MediaFetcher
    public var settings: MediaStreamSettings
    public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    public var jitterUnit: @Sendable () -> Double = { Double.random(in: 0...1) }
    public var progress: MediaStreamProgress?

    /// Segments joined from a live playlist's end (RFC 8216 §6.3.3 asks for at least three target durations).
    static let liveEdgeSegments = 3

    public init(url: MediaURL, fetcher: MediaFetcher, settings: MediaStreamSettings = MediaStreamSettings()) {
        self.url = url
        self.fetcher = fetcher
        self.settings = settings
    }

    private enum Failure: Error {
        case retry(String)
        case fatal(String)
    }

    /// Where playback stands between playlist reloads.
    private struct Position {
        var mediaPlaylist: MediaURL?
        var lastSequence: Int?
        var demuxer = MPEGTSDemuxer()
        var segmentKind: SegmentKind?
        /// fMP4: the initialization section (`#EXT-X-MAP`), fed to the decoder before the first segment.
        var initialization: MediaURL?
    }

    private enum SegmentKind {
        case transportStream, packedAudio, fragmentedMP4
    }

    public func run(into sink: any PCMSink, onEvent: @escaping (MediaStreamEvent) -> Void) async {
        var session = MediaStreamSession(sink: sink, settings: settings, progress: progress, onEvent: onEvent)
        var position = Position()
        while !Task.isCancelled {
            do throws(Failure) {
                let playlist = try await mediaPlaylist(&position)
                let played = try await playNewSegments(of: playlist, &position, &session)
                if played { session.recovered() }
                if playlist.ended, position.lastSequence == playlist.segments.last?.sequence {
                    await session.finish(url: url)
                    return
                }
                // RFC 8216 §6.3.4: a reload that found nothing new waits half a target duration; after new
                // segments (which took their own time to play into the sink) it reloads at once
                if !played { try? await sleep(.milliseconds(Int(max(0.5, playlist.targetDuration) * 500))) }
            } catch {
                switch error {
                case .fatal(let reason):
                    onEvent(.failed(reason))
                    return
                case .retry(let reason):
                    let again = await session.waitToRetry(reason, deliveredAudio: false, url: url, sleep: sleep, jitterUnit: jitterUnit)
                    if !again { return }
                }
            }
        }
    }

    /// The media playlist, through the master playlist the first time.
    private func mediaPlaylist(_ position: inout Position) async throws(Failure) -> HLSPlaylist {
        var playlist = try await fetchPlaylist(position.mediaPlaylist ?? url, first: position.mediaPlaylist == nil)
        if position.mediaPlaylist == nil {
            if playlist.isMaster {
                guard let audio = playlist.audioPlaylist(maxBandwidth: settings.hlsMaxBandwidth) else {
                    throw .fatal("\(url) lists no stream to play")
                }
                position.mediaPlaylist = audio
                playlist = try await fetchPlaylist(audio, first: true)
            } else {
                position.mediaPlaylist = url
            }
        }
        if playlist.encrypted { throw .fatal("\(url) is encrypted HLS, which this release does not play") }
        position.initialization = playlist.initialization
        return playlist
    }

    private func fetchPlaylist(_ playlistURL: MediaURL, first: Bool) async throws(Failure) -> HLSPlaylist {
        let body: [UInt8]
        do {
            body = try await fetcher.fetch(playlistURL, limit: settings.limits.maxHLSPlaylistBytes).body
        } catch {
            // The first playlist missing is permanent; a reload that fails is a dropped stream.
            if first, case .status(let code, _) = error, (400..<500).contains(code), code != 408, code != 429 {
                throw .fatal(error.description)
            }
            throw .retry(error.description)
        }
        return HLSPlaylist(parsing: String(decoding: body, as: UTF8.self), base: playlistURL)
    }

    /// Fetches and plays the segments after the last one played; true if any was.
    private func playNewSegments(
        of playlist: HLSPlaylist, _ position: inout Position, _ session: inout MediaStreamSession
    ) async throws(Failure) -> Bool {
        var segments = playlist.segments
        if let last = position.lastSequence, let newest = segments.last?.sequence, newest >= last {
            segments = segments.filter { $0.sequence > last }
        } else if !playlist.ended {
            // joining, or the server restarted its numbering: the live edge
            segments = Array(segments.suffix(Self.liveEdgeSegments))
        }
        var played = false
        for segment in segments {
            if Task.isCancelled { return played }
            let body: [UInt8]
            do {
                body = try await fetcher.fetch(segment.url, limit: settings.limits.maxHLSSegmentBytes).body
            } catch {
                if case .status(404, _) = error { continue }  // fell out of the live window: go on with the next
                throw .retry(error.description)
            }
            try await play(body, &position, &session)
            position.lastSequence = segment.sequence
            played = true
        }
        return played
    }

    private func play(_ body: [UInt8], _ position: inout Position, _ session: inout MediaStreamSession) async throws(Failure) {
        if session.decoder == nil, let initialization = position.initialization {
            // fMP4: the index first, then each segment's fragments continue the same MP4 stream
            position.segmentKind = .fragmentedMP4
            try begin(.mp4, &session)
            let index: [UInt8]
            do {
                index = try await fetcher.fetch(initialization, limit: settings.limits.maxHLSPlaylistBytes).body
            } catch {
                throw .retry(error.description)
            }
            try await feed(index, &position, &session)
        } else if session.decoder == nil {
            let kind: SegmentKind = body.first == 0x47 ? .transportStream : .packedAudio
            position.segmentKind = kind
            if kind == .packedAudio {
                guard let codec = AudioCodec.sniff(Array(body.prefix(4_096))), codec == .aac || codec == .mp3 else {
                    throw .fatal("\(url) sends segments that are neither MPEG-TS nor AAC or MP3")
                }
                try begin(codec, &session)
            }
        }
        if position.segmentKind == .packedAudio, let title = ID3Tag.streamTitle(body) { session.announce(title: title) }
        try await feed(body, &position, &session)
        if position.segmentKind == .transportStream {
            position.demuxer.endOfSegment { tag in
                if let title = ID3Tag.streamTitle(tag) { session.announce(title: title) }
            }
        }
    }

    /// Decodes `body` a slice at a time, each played into the sink before the next.
    private func feed(_ body: [UInt8], _ position: inout Position, _ session: inout MediaStreamSession) async throws(Failure) {
        var rest = body[...]
        while !rest.isEmpty {
            let slice = rest.prefix(max(1, settings.decodeSliceBytes))
            rest = rest.dropFirst(slice.count)
            let failure: CodecError? = slice.withUnsafeBytes { raw in
                do throws(CodecError) {
                    if position.segmentKind == .transportStream {
                        try feedTransportStream(raw, &position, &session)
                    } else {
                        try session.decode(raw)
                    }
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                if failure.kind == .unsupported { throw .fatal("\(url): \(failure.description)") }
                throw .retry(failure.description)
            }
            await session.drain()
            if Task.isCancelled { return }
        }
    }

    private func feedTransportStream(
        _ raw: UnsafeRawBufferPointer, _ position: inout Position, _ session: inout MediaStreamSession
    ) throws(CodecError) {
        var failure: CodecError?
        try position.demuxer.push(
            raw,
            audio: { stream, audio in
                guard failure == nil else { return }
                do throws(CodecError) {
                    if session.decoder == nil {
                        try session.begin(codec: stream == .mp3 ? .mp3 : .aac)
                        session.onEvent(.connected(codec: session.codec ?? .aac, name: nil, resumedAt: nil))
                    }
                    try session.decode(audio)
                } catch {
                    failure = error
                }
            },
            tag: { tag in
                if let title = ID3Tag.streamTitle(tag) { session.announce(title: title) }
            })
        if let failure { throw failure }
    }

    private func begin(_ codec: AudioCodec, _ session: inout MediaStreamSession) throws(Failure) {
        do throws(CodecError) { try session.begin(codec: codec) } catch { throw .fatal(error.description) }
        session.onEvent(.connected(codec: codec, name: nil, resumedAt: nil))
    }
}

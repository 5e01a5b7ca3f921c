import AudioCore
import Basics
import Codecs
import HTTP
import Media
import Synchronization
import TestProcess
import TestSupport
import Testing

/// Collects what the source writes; accepts at most `framesPerCall` per write (back-pressure).
final class CollectingSink: PCMSink {
    var samples: [Int16] = []
    var formats: [AudioFormat] = []
    var finished = false
    var refusals = 0
    let framesPerCall: Int

    init(framesPerCall: Int = .max) {
        self.framesPerCall = framesPerCall
    }

    func write(_ input: UnsafeBufferPointer<Int16>, format: AudioFormat) -> Int {
        if formats.last != format { formats.append(format) }
        let frames = min(input.count / format.channels, framesPerCall)
        samples.append(contentsOf: input.prefix(frames * format.channels))
        if frames < input.count / format.channels { refusals += 1 }
        return frames
    }

    func finish() { finished = true }

    /// Each loudness the stream's tags told, once per change.
    var taggedLoudness: [Double] = []
    func setTaggedLoudness(_ loudness: Double) {
        if taggedLoudness.last != loudness { taggedLoudness.append(loudness) }
    }
}

/// A sink that keeps falling behind: it refuses its first `refusedAtFirst` writes, then every other
/// one, and takes at most 4096 frames at a time. At each write it records how much decoded audio
/// (the source's decoded seconds minus what it has taken) was waiting for it.
final class LaggingSink: PCMSink {
    let progress: MediaStreamProgress
    let refusedAtFirst: Int
    var samples: [Int16] = []
    var takenFrames = 0
    var calls = 0
    var largestBacklogSeconds = 0.0

    init(progress: MediaStreamProgress, refusedAtFirst: Int) {
        self.progress = progress
        self.refusedAtFirst = refusedAtFirst
    }

    func write(_ input: UnsafeBufferPointer<Int16>, format: AudioFormat) -> Int {
        calls += 1
        let backlog = progress.current.decodedSeconds - Double(takenFrames) / Double(format.sampleRate)
        largestBacklogSeconds = max(largestBacklogSeconds, backlog)
        if calls <= refusedAtFirst || calls % 2 == 0 { return 0 }
        let frames = min(input.count / format.channels, 4_096)
        samples.append(contentsOf: input.prefix(frames * format.channels))
        takenFrames += frames
        return frames
    }

    func finish() {}
}

final class EventLog: Sendable {
    private let events = Mutex<[MediaStreamEvent]>([])
    func append(_ event: MediaStreamEvent) { events.withLock { $0.append(event) } }
    var all: [MediaStreamEvent] { events.withLock { $0 } }
}

final class SleepLog: Sendable {
    private let delays = Mutex<[Duration]>([])
    func record(_ delay: Duration) { delays.withLock { $0.append(delay) } }
    var all: [Duration] { delays.withLock { $0 } }
}

@Suite struct MediaStreamSourceTests {
    private func source(_ url: String, client: HTTPClient, sleeps: SleepLog) throws -> MediaStreamSource {
        var settings = MediaStreamSettings()
        settings.prebuffer = .milliseconds(200)
        settings.maxConsecutiveFailures = 3
        settings.backPressurePoll = .milliseconds(1)
        var source = MediaStreamSource(url: try MediaURL(parsing: url), client: client, settings: settings)
        source.sleep = { sleeps.record($0) }
        source.jitterUnit = { 0.5 }
        return source
    }

    @Test func podcastDropsAreResumedWithRangeAndPlayExactlyOnce() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let mp3 = try MediaFixtures.sineMP3(seconds: 2, frequency: 440)
        server.route("/ep.mp3", MediaStandIn.Route(.file(mp3, contentType: "audio/mpeg"), stopAfterBytes: 9_000))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let sleeps = SleepLog()
        let events = EventLog()
        let sink = CollectingSink(framesPerCall: 700)
        try await source(server.url("/ep.mp3"), client: client, sleeps: sleeps).run(into: sink) { events.append($0) }
        let expected = try MP3Decoder().decodeAll(mp3).samples
        #expect(sink.samples == expected)
        #expect(sink.finished)
        #expect(sink.refusals > 0)
        #expect(events.all.last == .ended)
        let ranges = server.requests.compactMap { $0.header("Range") }
        #expect(ranges.count == (mp3.count - 1) / 9_000)
        #expect(ranges.first == "bytes=9000-")
        #expect(events.all.contains(.connected(codec: .mp3, name: nil, resumedAt: 9_000)))
        // Each drop delivered audio, so every retry is "attempt 1" with the base delay.
        #expect(Set(sleeps.all) == [.milliseconds(500)])
    }

    @Test func liveStreamReconnectsAfterADropAndReportsTitles() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        var stream = MediaStandIn.LiveStream(audio: try MediaFixtures.sineMP3(seconds: 1, frequency: 440))
        stream.bytesPerSecond = 160_000
        stream.burstBytes = 20_000
        stream.metaInterval = 4_000
        stream.titles = ["Now - Playing"]
        server.route("/live", MediaStandIn.Route(.live(stream), stopAfterBytes: 24_000))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let sleeps = SleepLog()
        let events = EventLog()
        let sink = CollectingSink()
        let playing = try source(server.url("/live"), client: client, sleeps: sleeps)
        let task = Task {
            await playing.run(into: sink) { events.append($0) }
            return sink.samples.count
        }
        // Normally well under a second; the margin is for the full suite on a loaded 2-core box.
        _ = await waitUntil { server.requests.count >= 3 }
        task.cancel()
        let played = await task.value
        #expect(server.requests.count >= 3)
        #expect(played > 44_100)
        let all = events.all
        #expect(all.first == .connected(codec: .mp3, name: "Stand-in Radio", resumedAt: nil))
        #expect(all.contains(.title("Now - Playing")))
        #expect(all.contains(.format(AudioFormat(sampleRate: 44_100, channels: 2))))
        #expect(all.contains { if case .reconnecting(attempt: 1, _, let reason) = $0 { reason == "the stream ended" } else { false } })
        #expect(all.filter { $0 == .title("Now - Playing") }.count == 1, "the same title is announced once")
        #expect(server.requests.allSatisfy { $0.header("Range") == nil })
    }

    @Test func oggOpusRadioReportsTitlesFromChainedStreams() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        var audio: [UInt8] = []
        for (serial, title, gain) in [(UInt32(1), "TITLE=First Song", "-1280"), (2, "TITLE=Second Song", "256")] {
            let pcm = try MediaFixtures.sinePCM(seconds: 0.5, frequency: 440, sampleRate: 48_000, channels: 2)
            let writer = try OggOpusWriter(channels: 2, serial: serial, tags: ["ARTIST=Band", title, "R128_TRACK_GAIN=\(gain)"])
            audio += try writer.write(pcm) + writer.finish()
        }
        var stream = MediaStandIn.LiveStream(audio: audio)
        stream.contentType = "application/ogg"
        stream.bytesPerSecond = audio.count * 2
        stream.burstBytes = audio.count / 4
        server.route("/opus", .live(stream))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let events = EventLog()
        let sink = CollectingSink()
        let playing = try source(server.url("/opus"), client: client, sleeps: SleepLog())
        let task = Task {
            await playing.run(into: sink) { events.append($0) }
            return (sink.formats, sink.taggedLoudness)
        }
        _ = await waitUntil { events.all.contains(.title("Band - Second Song")) }
        task.cancel()
        let (formats, loudness) = await task.value
        // Each track's R128 gain reaches the sink as its loudness, for the leveler.
        #expect(Array(loudness.prefix(2)) == [-18, -24], "\(loudness)")
        let all = events.all
        #expect(all.first == .connected(codec: .oggOpus, name: "Stand-in Radio", resumedAt: nil))
        #expect(all.contains(.format(AudioFormat(sampleRate: 48_000, channels: 2))))
        #expect(all.contains(.title("Band - First Song")))
        #expect(all.contains(.title("Band - Second Song")))
        #expect(formats == [AudioFormat(sampleRate: 48_000, channels: 2)])
    }

    @Test func permanentErrorsFailAtOnce() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/page", .file(Array("<html><body>Not a stream</body></html>".utf8), contentType: "text/html"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        for (path, words) in [("/missing", "HTTP 404"), ("/page", "did not return audio")] {
            let events = EventLog()
            let sleeps = SleepLog()
            try await source(server.url(path), client: client, sleeps: sleeps).run(into: CollectingSink()) { events.append($0) }
            guard case .failed(let reason)? = events.all.last else {
                Issue.record("\(path): \(events.all)")
                continue
            }
            #expect(reason.contains(words), "\(reason)")
            #expect(sleeps.all.isEmpty)
        }
    }

    /// An Ogg Vorbis file served as plain "audio/ogg" plays: the first page's packet names the codec.
    @Test func oggVorbisServedAsAudioOggPlays() async throws {
        let vorbis = try MediaFixtures.ffmpegSine("ogg", encoder: ["-c:a", "libvorbis"], seconds: 1, frequency: 440)
        let events = try await play(vorbis, contentType: "audio/ogg")
        #expect(events.log.all.contains(.connected(codec: .oggVorbis, name: nil, resumedAt: nil)), "\(events.log.all)")
        #expect(events.log.all.last == .ended)
        #expect(events.sink.formats == [AudioFormat(sampleRate: 44_100, channels: 2)])
        #expect(events.sink.finished)
    }

    /// AAC from a server that calls it "audio/mpeg" plays as AAC: the bytes win.
    @Test func mislabelledAACPlaysAsAAC() async throws {
        let aac = try MediaFixtures.ffmpegSine("aac", encoder: ["-c:a", "aac", "-f", "adts"], seconds: 1, frequency: 440)
        let events = try await play(aac, contentType: "audio/mpeg")
        #expect(events.log.all.contains(.connected(codec: .aac, name: nil, resumedAt: nil)), "\(events.log.all)")
        #expect(events.log.all.last == .ended)
        #expect(events.sink.formats == [AudioFormat(sampleRate: 44_100, channels: 2)])
    }

    /// An M4A whose index follows its audio plays: the source fetches the index with a Range request,
    /// then the audio from its first sample.
    @Test func anM4AWithItsIndexAtTheEndPlaysThroughRangeRequests() async throws {
        let m4a = try MediaFixtures.ffmpegSine("m4a", encoder: ["-c:a", "aac"], seconds: 1, frequency: 440)
        let (log, sleeps, sink, requests) = try await playWithRequests(m4a, contentType: "audio/mp4")
        #expect(log.all.last == .ended, "\(log.all)")
        #expect(sink.formats == [AudioFormat(sampleRate: 44_100, channels: 2)])
        #expect(sink.samples.count / 2 >= 44_100)
        #expect(requests.count == 3, "the file, its index, its audio: \(requests)")
        #expect(sleeps.all.isEmpty, "seeks are not failures")
    }

    /// A format this release does not play fails at once with its name and what it does play, instead of
    /// playing as silence or being retried.
    @Test func anUnplayedFormatFailsNamingIt() async throws {
        let alac = try MediaFixtures.ffmpegSine("m4a", encoder: ["-c:a", "alac"], seconds: 1, frequency: 440)
        let events = try await play(alac, contentType: "audio/mp4")
        guard case .failed(let reason)? = events.log.all.last else {
            Issue.record("\(events.log.all)")
            return
        }
        #expect(reason.contains("the file's audio is ALAC, not AAC"), "\(reason)")
        #expect(events.sleeps.all.isEmpty, "not retried")
        #expect(events.sink.formats.isEmpty, "nothing was played")
    }

    /// Serves `bytes` as a file with `contentType` and runs a source on it to its end.
    private func play(_ bytes: [UInt8], contentType: String) async throws -> (log: EventLog, sleeps: SleepLog, sink: CollectingSink) {
        let (log, sleeps, sink, _) = try await playWithRequests(bytes, contentType: contentType)
        return (log, sleeps, sink)
    }

    /// `play`, and the Range headers of the requests the server saw.
    private func playWithRequests(_ bytes: [UInt8], contentType: String) async throws -> (
        log: EventLog, sleeps: SleepLog, sink: CollectingSink, requests: [String?]
    ) {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        server.route("/item", .file(bytes, contentType: contentType))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let events = EventLog()
        let sleeps = SleepLog()
        let sink = CollectingSink()
        try await source(server.url("/item"), client: client, sleeps: sleeps).run(into: sink) { events.append($0) }
        return (events, sleeps, sink, server.requests.filter { $0.path == "/item" }.map { $0.header("range") })
    }

    @Test func unreachableServerBacksOffExponentiallyThenGivesUp() async throws {
        let server = try await MediaStandIn.start()
        let url = server.url("/live")
        await server.stop()
        let client = try HTTPClient()
        defer { client.shutdown() }
        let events = EventLog()
        let sleeps = SleepLog()
        try await source(url, client: client, sleeps: sleeps).run(into: CollectingSink()) { events.append($0) }
        #expect(sleeps.all == [.milliseconds(500), .milliseconds(1_000), .milliseconds(2_000)])
        guard case .failed(let reason)? = events.all.last else {
            Issue.record("\(events.all)")
            return
        }
        #expect(reason.contains("failed 3 times in a row"))
    }

    @Test func slowStartStillPlays() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let mp3 = try MediaFixtures.sineMP3(seconds: 1, frequency: 440)
        server.route("/slow.mp3", MediaStandIn.Route(.file(mp3, contentType: "audio/mpeg"), firstByteDelay: .milliseconds(400)))
        let client = try HTTPClient()
        defer { client.shutdown() }
        let events = EventLog()
        let sink = CollectingSink()
        try await source(server.url("/slow.mp3"), client: client, sleeps: SleepLog()).run(into: sink) { events.append($0) }
        #expect(events.all.last == .ended)
        #expect(sink.samples == (try MP3Decoder().decodeAll(mp3).samples))
    }

    /// The endurance run's memory growth: a sink that falls behind (every underrun delays playback)
    /// lets the HTTP buffer fill to `maxBufferedBytes`; decoded in one piece that was 16 s of PCM
    /// (2.8 MB) waiting for the sink. Decoded a slice at a time it stays within the prebuffer plus
    /// a slice, and every sample still arrives once, in order.
    @Test func aSinkThatFallsBehindHoldsAtMostASliceOfDecodedAudio() async throws {
        let server = try await MediaStandIn.start()
        defer { Task { await server.stop() } }
        let mp3 = try MediaFixtures.sineMP3(seconds: 20, frequency: 440)
        server.route("/long.mp3", .file(mp3, contentType: "audio/mpeg"))
        let client = try HTTPClient()
        defer { client.shutdown() }
        var playing = try source(server.url("/long.mp3"), client: client, sleeps: SleepLog())
        playing.settings.maxBufferedBytes = 256 * 1_024  // the default was 256 KiB when this was found
        #expect(mp3.count > playing.settings.maxBufferedBytes)
        let progress = MediaStreamProgress()
        playing.progress = progress
        let sink = LaggingSink(progress: progress, refusedAtFirst: 200)
        let events = EventLog()
        await playing.run(into: sink) { events.append($0) }
        #expect(events.all.last == .ended)
        #expect(sink.samples == (try MP3Decoder().decodeAll(mp3).samples))
        // Prebuffer 0.2 s + one 4 KiB slice (0.26 s at 128 kbit/s) + a frame split across slices.
        #expect(sink.largestBacklogSeconds < 1.0, "decoded audio waiting for the sink: \(sink.largestBacklogSeconds) s")
    }

    @Test func reconnectDelaysDoubleUpToTheCap() {
        let settings = MediaStreamSettings()
        #expect(settings.reconnect == .mediaReconnect)
        #expect(settings.reconnect.delay(attempt: 1) == .milliseconds(500))
        #expect(settings.reconnect.delay(attempt: 4) == .milliseconds(4_000))
        #expect(settings.reconnect.delay(attempt: 30) == .seconds(30))
        #expect(settings.reconnect.delay(attempt: 2, unit: 0) == .milliseconds(750))
    }
}

import Basics
import Glibc
import TestProcess
import TestSupport
import Testing

extension ServicesOneAtATime {
    /// Media through the real `jarvis-voice run` from real servers (Debian's icecast2, nginx and ffmpeg, run
    /// by the test support): live radio that ffmpeg encodes and pushes through Icecast, with a title set
    /// through Icecast's admin API; files and live HLS that nginx serves. Every case plays its own tone, so
    /// the paced speaker's output proves what played.
    @Suite(.serialized, .timeLimit(.minutes(3))) struct RealMediaServerTests {
        let dir = TemporaryDirectory()

        /// What a server serves, how, and the tone it carries.
        enum ServedAudio: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case oggVorbisLive, oggFLACLive, aacADTSLive
            case flacFile, oggVorbisFile, m4aFaststartFile, m4aMoovAtEndFile
            case hlsLive, hlsMaster, hlsFMP4

            enum Server {
                case icecast(FFmpegFeed.Format)
                case nginxFile(FFmpegFile.Format)
                case nginxHLS(FFmpegHLS.Layout)
            }

            var server: Server {
                switch self {
                case .oggVorbisLive: .icecast(.oggVorbis)
                case .oggFLACLive: .icecast(.oggFLAC)
                case .aacADTSLive: .icecast(.aacADTS)
                case .flacFile: .nginxFile(.flac)
                case .oggVorbisFile: .nginxFile(.stream(.oggVorbis))
                case .m4aFaststartFile: .nginxFile(.m4a(faststart: true))
                case .m4aMoovAtEndFile: .nginxFile(.m4a(faststart: false))
                case .hlsLive: .nginxHLS(.mpegTS)
                case .hlsMaster: .nginxHLS(.master)
                case .hlsFMP4: .nginxHLS(.fmp4)
                }
            }

            /// Its own tone (a whole number of cycles in the 20 ms blocks `heard` measures).
            var frequency: Int { 750 + 100 * (Self.allCases.firstIndex(of: self) ?? 0) }

            /// The title sent with it, where the format carries one: Icecast's ICY title (AAC), the Ogg
            /// stream's comments, the HLS segments' timed ID3 (MPEG-TS only). Files carry none.
            var title: String? {
                switch server {
                case .icecast: "Icecast Artist - \(rawValue)"
                case .nginxHLS(.mpegTS): "HLS Artist - \(rawValue)"
                case .nginxFile, .nginxHLS: nil
                }
            }

            var testDescription: String { rawValue }
        }

        /// The formats `jarvis-voice` does not play yet: their cases run in `aFormatNotPlayedYetPlays`, which is
        /// disabled. Taking one out of this list moves its case to `aServedFormatPlays`, which runs.

        /// How long a case waits for a status or a tone before it calls it missing: a hang guard, not a
        /// measure of speed (a passing case hears its tone within seconds), shorter than `hangTimeout` so
        /// that a format that half works fails in well under a minute.
        static let guardTimeout: Duration = .seconds(30)

        // MARK: tests

        @Test func anMP3StreamFromIcecastPlaysWithTheTitleSetThroughTheAdminAPI() async throws {
            let icecast = try await IcecastServer.start()
            let feed = try await FFmpegFeed.start(.mp3, frequency: 450, sampleRate: 44_100, to: icecast, mount: "/mp3")
            try await icecast.setTitle("Icecast Artist - Live Song", on: "/mp3")
            try await withService(link: "mp3live") { service in
                try await expectPlays(
                    icecast.url("/mp3"), on: service, frequency: 450, title: "Icecast Artist - Live Song",
                    servers: "icecast2:\n\(icecast.log)\nffmpeg:\n\(feed.log)")
            }
            await feed.stop()
            await icecast.stop()
        }

        @Test func anOggOpusStreamFromIcecastPlaysWithTheTitleInItsComments() async throws {
            let icecast = try await IcecastServer.start()
            let feed = try await FFmpegFeed.start(.oggOpus, frequency: 550, to: icecast, mount: "/opus", title: "Opus Artist - Tagged")
            try await withService(link: "opuslive") { service in
                try await expectPlays(
                    icecast.url("/opus"), on: service, frequency: 550, title: "Opus Artist - Tagged",
                    servers: "icecast2:\n\(icecast.log)\nffmpeg:\n\(feed.log)")
            }
            await feed.stop()
            await icecast.stop()
        }

        @Test func anMP3FileFromNginxPlaysToItsEnd() async throws {
            let files = TemporaryDirectory(prefix: "jv-nginx-files")
            let name = try await FFmpegFile.write(.stream(.mp3), seconds: 4, frequency: 650, sampleRate: 44_100, into: files.path, name: "tone")
            let nginx = try await NginxServer.start(serving: files.path)
            try await withService(link: "mp3file") { service in
                try await expectPlays(nginx.url(name), on: service, frequency: 650, servers: "nginx:\n\(nginx.log)")
                // All of it, then the end: stopped, and the log says it finished.
                let heard = await service.heard(650, atLeast: 3_500, timeout: Self.guardTimeout)
                #expect(heard >= 3_500, "heard \(heard) ms of the 4 s file; log:\n\(service.logText)")
                let ended = try await waitForStatus(service) { $0["media"]?["state"] == "stopped" }
                #expect(ended != nil && service.logText.contains("media: finished"), "log:\n\(service.logText)")
            }
            await nginx.stop()
        }

        /// The HLS server goes away mid-stream for a few seconds: the service says it is reconnecting, shows
        /// `buffering` (never `playing` in the silence), and plays again within 5 s of the server's return.
        @Test func liveHLSRecoversWhenItsServerRestarts() async throws {
            let files = TemporaryDirectory(prefix: "jv-nginx-hls")
            var nginx = try await NginxServer.start(serving: files.path)
            let hls = try await FFmpegHLS.start(.mpegTS, frequency: 750, into: files.path)
            try await withService(link: "hlsrestart") { service in
                try await expectPlays(nginx.url("live.m3u8"), on: service, frequency: 750, servers: "ffmpeg:\n\(hls.log)")
                await nginx.stop()
                let silent = try await waitForStatus(service) { $0["media"]?["state"] == "buffering" }
                #expect(silent != nil && service.logText.contains("reconnecting"), "log:\n\(service.logText)")
                nginx = try await NginxServer.restart(nginx)
                let back = ContinuousClock.now
                let playing = try await waitForStatus(service) { $0["media"]?["state"] == "playing" }
                #expect(playing != nil && ContinuousClock.now - back < .seconds(5), "playing again after \(ContinuousClock.now - back)")
                let heard = await service.heard(750, atLeast: 1_000, timeout: Self.guardTimeout)
                #expect(heard >= 1_000, "heard \(heard) ms after the restart; log:\n\(service.logText)")
            }
            await hls.stop()
            await nginx.stop()
        }

        @Test(arguments: ServedAudio.allCases)
        func aServedFormatPlays(_ audio: ServedAudio) async throws {
            try await expectServedAudioPlays(audio)
        }

        // MARK: helpers

        /// Starts the server `audio` needs, plays it, and expects its tone and title.
        func expectServedAudioPlays(_ audio: ServedAudio) async throws {
            switch audio.server {
            case .icecast(let format):
                let icecast = try await IcecastServer.start()
                let mount = "/" + format.rawValue
                let feed = try await FFmpegFeed.start(format, frequency: audio.frequency, to: icecast, mount: mount, title: audio.title)
                if let title = audio.title, !format.isOgg { try await icecast.setTitle(title, on: mount) }
                try await withService(link: audio.rawValue) { service in
                    try await expectPlays(
                        icecast.url(mount), on: service, frequency: audio.frequency, title: audio.title,
                        servers: "icecast2:\n\(icecast.log)\nffmpeg:\n\(feed.log)")
                }
                await feed.stop()
                await icecast.stop()
            case .nginxFile(let format):
                let files = TemporaryDirectory(prefix: "jv-nginx-files")
                let name = try await FFmpegFile.write(format, seconds: 4, frequency: audio.frequency, into: files.path, name: "tone")
                let nginx = try await NginxServer.start(serving: files.path)
                try await withService(link: audio.rawValue) { service in
                    try await expectPlays(nginx.url(name), on: service, frequency: audio.frequency, servers: "nginx:\n\(nginx.log)")
                }
                await nginx.stop()
            case .nginxHLS(let layout):
                let files = TemporaryDirectory(prefix: "jv-nginx-hls")
                let nginx = try await NginxServer.start(serving: files.path)
                let hls = try await FFmpegHLS.start(
                    layout, frequency: audio.frequency, into: files.path, titles: audio.title.map { [$0] } ?? [])
                try await withService(link: audio.rawValue) { service in
                    try await expectPlays(
                        nginx.url(layout.playlist), on: service, frequency: audio.frequency, title: audio.title,
                        servers: "nginx:\n\(nginx.log)\nffmpeg:\n\(hls.log)")
                }
                await hls.stop()
                await nginx.stop()
            }
        }

        /// `ctl play URL` exits 0, `ctl status --json` shows it playing (with `title` when given), and a second
        /// of its `frequency` tone reaches the speaker. `servers`: their logs, for a failure's message.
        func expectPlays(
            _ url: String, on service: ServiceUnderTest, frequency: Int, title: String? = nil, servers: @autoclosure () -> String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let play = try await service.ctl("play", url)
            try #require(play.status == 0, "ctl play \(url): \(play)\nservice log:\n\(service.logText)\n\(servers())", sourceLocation: sourceLocation)
            let playing = try await waitForStatus(service) { status in
                status["media"]?["state"] == "playing" && (title.map { status["media"]?["title"] == .string($0) } ?? true)
            }
            #expect(
                playing != nil, "status never showed \(url) playing\(title.map { " with the title \"\($0)\"" } ?? ""); log:\n\(service.logText)",
                sourceLocation: sourceLocation)
            let heard = await service.heard(Double(frequency), atLeast: 1_000, timeout: Self.guardTimeout)
            #expect(
                heard >= 1_000, "heard \(heard) ms of the \(frequency) Hz tone; log:\n\(service.logText)\n\(servers())",
                sourceLocation: sourceLocation)
        }

        /// Polls `ctl status --json` until `condition` holds; the status, or nil after `guardTimeout`.
        func waitForStatus(_ service: ServiceUnderTest, _ condition: (JSONValue) -> Bool) async throws -> JSONValue? {
            try await waitFor(timeout: Self.guardTimeout, interval: .milliseconds(50)) { () async throws -> JSONValue? in
                let result = try await service.ctl("status", "--json")
                guard result.status == 0, let status = JSONValue.parse(result.stdout), condition(status) else { return Optional<JSONValue>.none }
                return status
            }
        }

        /// Runs `jarvis-voice run` (full media volume, Realtime and term-llm stand-ins) for `body`, then
        /// stops it and them, also when `body` throws.
        func withService(link: String, _ body: (ServiceUnderTest) async throws -> Void) async throws {
            let realtime = try await RealtimeStandIn.start()
            let jarvis = try await TermLLMStandIn.start()
            let service = try ServiceUnderTest.start(
                in: dir, name: link, realtime: realtime, jarvis: jarvis, mediaSection: "volume = 1.0\nstation_catalog_url = \"\"")
            defer { _ = service.process.signal(SIGKILL) }
            var failure: (any Error)?
            if try await service.ctlWhenReady("status", timeout: Self.guardTimeout) {
                do { try await body(service) } catch { failure = error }
            } else {
                Issue.record("the service did not answer; log:\n\(service.logText)")
            }
            await service.stop()
            await realtime.shutdown()
            await jarvis.stop()
            if let failure { throw failure }
        }
    }
}

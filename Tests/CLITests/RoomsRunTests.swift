import ALSATestbed
import Basics
import Glibc
import TestProcess
import TestSupport
import Testing

extension ServicesOneAtATime {
    /// Many rooms through Debian's real snapserver: two `jarvis-voice run` boxes, each on a paced speaker
    /// whose clock runs 50 ppm fast or slow, and Debian's real `snapclient` on a third, all play the group's
    /// stream (tone bursts, one a second); the speakers' timelines say when each burst left each speaker.
    /// `JV_ROOMS_SECONDS` sets how long the group plays (`.ci/run` holds it for 10 minutes).
    @Suite(.serialized, .timeLimit(.minutes(15))) struct RoomsRunTests {
        static let available = SnapServer.isInstalled && access(SnapClient.program, X_OK) == 0
        static var seconds: Int { getenv("JV_ROOMS_SECONDS").flatMap { Int(String(cString: $0)) } ?? 40 }
        /// A burst's onset in one room against another's; the group is "in step" within this.
        static let inStep = 5.0  // ms
        let dir = TemporaryDirectory()

        /// One box of the group, in a directory of its own (its control socket and state).
        struct Box {
            let name: String
            let service: ServiceUnderTest
            let timeline: String
            let dir: TemporaryDirectory

            static func start(
                _ name: String, ppm: Double, server: SnapServer, realtime: RealtimeStandIn, jarvis: TermLLMStandIn,
                mic: PacedPCMOptions? = nil, speakerLink: String? = nil, realtimeSection: String = "idle_timeout_s = 20"
            ) async throws -> Box {
                let announcements =
                    ["control_port = \(server.controlPort)"]
                    + (server.tcpPort("announce").map { ["announce_port = \($0)"] } ?? ["announce_stream = \"\""])
                let dir = TemporaryDirectory(prefix: "jv-\(name)")
                let timeline = dir.file("\(name)-speaker.timeline")
                let service = try ServiceUnderTest.start(
                    in: dir, name: name, realtime: realtime, jarvis: jarvis, mic: mic, speakerLink: speakerLink,
                    speaker: PacedPCMOptions(driftPPM: ppm, timeline: timeline), realtimeSection: realtimeSection,
                    mediaSection: "volume = 1.0\nduck_db = -20\nloudness_target = 0\nstation_catalog_url = \"\"",
                    snapcastSection: ["enabled = true", "server = \"127.0.0.1:\(server.streamPort)\"", "name = \"\(name)\""] + announcements)
                guard try await service.ctlWhenReady("status") else {
                    _ = service.process.signal(SIGKILL)
                    Issue.record("\(name) did not answer; log:\n\(service.logText)")
                    throw CancellationError()
                }
                return Box(name: name, service: service, timeline: timeline, dir: dir)
            }

            /// Waits until the box plays the group's stream in sync (`status.snapcast.playing`).
            func waitUntilPlaying(timeout: Duration = hangTimeout) async throws -> Bool {
                try await service.waitForStatus(timeout: timeout) { $0["snapcast"]?["playing"] == .bool(true) } != nil
            }

            func played() throws -> PlayedTimeline {
                try PlayedTimeline(outfile: service.played, timeline: timeline, channels: 2)
            }
        }

        @Test(.enabled(if: available, "snapserver and snapclient are installed"))
        func twoBoxesAndASnapclientPlayInStepAndAConversationDucksOneBoxOnly() async throws {
            let server = try await SnapServer.start(codec: "flac", bufferMs: 600, sources: [.pipe(name: "radio")])
            let realtime = try await RealtimeStandIn.start()
            let jarvis = try await TermLLMStandIn.start()
            let kitchen = try await Box.start("kitchen", ppm: 50, server: server, realtime: realtime, jarvis: jarvis)
            defer { _ = kitchen.service.process.signal(SIGKILL) }
            let living = try await Box.start("living", ppm: -50, server: server, realtime: realtime, jarvis: jarvis)
            defer { _ = living.service.process.signal(SIGKILL) }
            let alsa = dir.file("reference-asound.conf")
            let reference = dir.file("reference.raw"), referenceTimeline = dir.file("reference.timeline")
            try TestPCMConfig.write([.paced(name: "reference", PacedPCMOptions(outfile: reference, timeline: referenceTimeline))], to: alsa)
            let snapclient = try SnapClient.start(port: server.streamPort, id: "reference", pcm: "reference", alsaConfig: alsa, logsIn: dir)

            let signal = ToneBurstSignal()
            let frames = Self.seconds * signal.sampleRate
            let feed = try server.feed("radio") { first, count in
                first < frames ? signal.samples(from: first, count: min(count, frames - first)) : nil
            }
            let start = PlayedBurst.now()
            for box in [kitchen, living] {
                #expect(try await box.waitUntilPlaying(), "\(box.name) did not play the group; log:\n\(box.service.logText)")
            }

            // Halfway, a conversation in the kitchen: listening ducks the kitchen by 20 dB, not the living room.
            try await kitchen.service.playOn(milliseconds: Self.seconds * 500 - 5_000)
            #expect(try await kitchen.service.ctl("tap").status == 0)
            #expect(await kitchen.service.waitForState("listening"), "log:\n\(kitchen.service.logText)")
            let duckedFrom = PlayedBurst.now() + 0.8e9  // the ramp, and the 600 ms buffer ahead of the speaker
            try await kitchen.service.playOn(milliseconds: 4_000)
            let duckedUntil = PlayedBurst.now()
            #expect(try await kitchen.service.ctl("tap").status == 0)
            #expect(await kitchen.service.waitForState("idle"), "log:\n\(kitchen.service.logText)")

            #expect(await feed.finish(timeout: .seconds(Self.seconds + 30)), "the feed ended")
            try await kitchen.service.playOn(milliseconds: 1_500)  // the last burst leaves the buffer
            let status = try await kitchen.service.status()
            await kitchen.service.stop()
            await living.service.stop()
            await snapclient.stop()
            await server.stop()

            let kitchenBursts = PlayedBurst.find(in: try kitchen.played())
            let livingBursts = PlayedBurst.find(in: try living.played())
            let referenceBursts = PlayedBurst.find(in: try PlayedTimeline(outfile: reference, timeline: referenceTimeline, channels: 2))
            let settled = start + 5e9
            let boxes = PlayedBurst.offsets(kitchenBursts, livingBursts, after: settled)
            let toReference = PlayedBurst.offsets(kitchenBursts, referenceBursts, after: settled)
            let logs = "kitchen:\n\(kitchen.service.logText)\nsnapclient:\n\(snapclient.log)\nsnapserver:\n\(server.log)"
            print(
                "rooms: kitchen (+50 ppm) vs living room (-50 ppm): \(PlayedBurst.summary(boxes)); kitchen vs snapclient: \(PlayedBurst.summary(toReference))"
            )
            #expect(boxes.count >= Self.seconds - 12, "\(PlayedBurst.summary(boxes)); \(logs)")
            #expect(boxes.allSatisfy { abs($0) < Self.inStep }, "\(PlayedBurst.summary(boxes)): \(boxes)")
            #expect(toReference.count >= Self.seconds - 12, "\(PlayedBurst.summary(toReference)); \(logs)")
            #expect(toReference.allSatisfy { abs($0) < Self.inStep }, "\(PlayedBurst.summary(toReference)): \(toReference)")
            #expect(status?["snapcast"]?["connected"] == .bool(true), "\(String(describing: status))")

            // The duck: the kitchen's bursts 20 dB down while it listened, the living room's as loud as before.
            func level(_ bursts: [PlayedBurst], from: Double, to: Double) -> Double {
                let peaks = bursts.filter { $0.nanoseconds > from && $0.nanoseconds < to }.map { Double($0.peak) }.sorted()
                return peaks.isEmpty ? .nan : 20 * log10(max(1, peaks[peaks.count / 2]))
            }
            let before = (settled, duckedFrom - 2e9)
            let kitchenDrop = level(kitchenBursts, from: before.0, to: before.1) - level(kitchenBursts, from: duckedFrom, to: duckedUntil)
            let livingDrop = level(livingBursts, from: before.0, to: before.1) - level(livingBursts, from: duckedFrom, to: duckedUntil)
            #expect(kitchenDrop > 15, "the kitchen ducked by \(kitchenDrop) dB")
            #expect(abs(livingDrop) < 1, "the living room changed by \(livingDrop) dB")
        }

        @Test(.enabled(if: available, "snapserver is installed"))
        func aRestartedSnapserverIsPlayedAgainWithin5SecondsOfItsReturn() async throws {
            let server = try await SnapServer.start(codec: "opus", bufferMs: 600, sources: [.pipe(name: "radio")])
            let realtime = try await RealtimeStandIn.start()
            let jarvis = try await TermLLMStandIn.start()
            let kitchen = try await Box.start("kitchen", ppm: 0, server: server, realtime: realtime, jarvis: jarvis)
            defer { _ = kitchen.service.process.signal(SIGKILL) }
            let signal = ToneBurstSignal()
            let feed = try server.feed("radio") { first, count in signal.samples(from: first, count: count) }
            #expect(try await kitchen.waitUntilPlaying(), "log:\n\(kitchen.service.logText)")
            let status = try #require(try await kitchen.service.status())
            #expect(status["snapcast"]?["codec"] == "opus", "\(status)")

            try await server.restart()
            let back = PlayedBurst.now()
            #expect(try await kitchen.waitUntilPlaying(), "log:\n\(kitchen.service.logText)")
            try await kitchen.service.playOn(milliseconds: 3_000)
            await feed.stop()
            await kitchen.service.stop()
            await server.stop()
            let log = kitchen.service.logText
            #expect(log.contains("snapcast: lost the snapserver at 127.0.0.1:\(server.streamPort)"), "log:\n\(log)")
            #expect(log.contains("snapcast: connected to 127.0.0.1:\(server.streamPort) again"), "log:\n\(log)")
            let firstBack = PlayedBurst.find(in: try kitchen.played()).first { $0.nanoseconds > back }
            let seconds = firstBack.map { ($0.nanoseconds - back) / 1e9 }
            #expect(seconds.map { $0 < 5 } == true, "the first burst after the server's return came after \(String(describing: seconds)) s")
        }

        /// The announcement: 200 ms of silence, then a 2 kHz tone for a second, as the assistant's voice.
        static let announcement: [Int16] =
            [Int16](repeating: 0, count: 4_800) + (0..<24_000).map { Int16(12_000 * sin(Double($0) * 2 * .pi * 2_000 / 24_000)) }

        @Test(.enabled(if: available, "snapserver is installed"))
        func anAnnouncementToEveryRoomIsHeardOnBothBoxesInStepOverTheDuckedGroup() async throws {
            let server = try await SnapServer.start(codec: "flac", bufferMs: 600, sources: [.pipe(name: "radio"), .tcp(name: "announce")])
            var script = RealtimeStandInScript()
            script.answerAudio = Self.announcement
            let realtime = try await RealtimeStandIn.start(script: script)
            let jarvis = try await TermLLMStandIn.start()
            let kitchen = try await Box.start("kitchen", ppm: 50, server: server, realtime: realtime, jarvis: jarvis)
            defer { _ = kitchen.service.process.signal(SIGKILL) }
            let living = try await Box.start("living", ppm: -50, server: server, realtime: realtime, jarvis: jarvis)
            defer { _ = living.service.process.signal(SIGKILL) }
            // The group plays (digital silence, so the only onset in the speakers' output is the announcement's).
            let feed = try server.feed("radio") { _, count in [Int16](repeating: 0, count: count * 2) }
            for box in [kitchen, living] {
                #expect(try await box.waitUntilPlaying(), "\(box.name) did not play the group; log:\n\(box.service.logText)")
                #expect(
                    await waitUntil { box.service.logText.contains("snapcast: announcements: playing the snapserver's stream") },
                    "\(box.name)'s announcement player did not join the stream; log:\n\(box.service.logText)")
            }

            async let said = kitchen.service.ctl("say", "--rooms", "all", "dinner is ready")
            let ducked = try await living.service.waitForStatus { $0["media"]?["ducked"] == .bool(true) }
            #expect(ducked != nil, "the living room ducked its media under the announcement; log:\n\(living.service.logText)")
            let result = try await said
            #expect(result.status == 0, "\(result.stdout)\(result.stderr); log:\n\(kitchen.service.logText)")
            #expect(result.stdout.contains("said in every room"), "\(result.stdout)")
            #expect(
                try await living.service.waitForStatus { $0["media"]?["ducked"] == .bool(false) } != nil,
                "the ducking ends after the announcement")
            await feed.stop()
            await kitchen.service.stop()
            await living.service.stop()
            await server.stop()

            let heard = try [kitchen, living].map { box in
                try #require(PlayedBurst.find(in: try box.played()).first, "\(box.name) did not play the announcement; log:\n\(box.service.logText)")
            }
            let apart = abs(heard[0].nanoseconds - heard[1].nanoseconds) / 1e6
            print("rooms: the announcement's onset in the kitchen and the living room \(apart) ms apart")
            #expect(apart < Self.inStep, "\(apart) ms apart")
            #expect(realtime.clientEvents(ofType: "response.create").count == 1, "one announcement spoken")
        }
    }
}

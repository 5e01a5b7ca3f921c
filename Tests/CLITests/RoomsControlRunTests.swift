import Basics
import Glibc
import Rooms
import Snapcast
import TestProcess
import TestSupport
import Testing

/// The box and Debian's real snapserver's control port: `status` shows the box's group, its stream and
/// the streams; `ctl room-stream` switches the group; volumes go both ways between the box and the server.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RoomsControlRunTests {
    static let available = SnapServer.isInstalled

    @Test(.enabled(if: available, "snapserver is installed"))
    func statusShowsTheGroupAndRoomStreamSwitchesItAndVolumesGoBothWays() async throws {
        let server = try await SnapServer.start(codec: "pcm", bufferMs: 400, sources: [.pipe(name: "radio"), .pipe(name: "jazz")])
        // The test's own calls wait as long as a loaded machine may need (the box keeps its 3 s).
        let control = SnapcastControlClient(host: "127.0.0.1", port: server.controlPort, timeout: .seconds(60))
        let realtime = try await RealtimeStandIn.start()
        let jarvis = try await TermLLMStandIn.start()
        let dir = TemporaryDirectory(prefix: "jv-den")
        let box = try ServiceUnderTest.start(
            in: dir, name: "den", realtime: realtime, jarvis: jarvis,
            mediaSection: "volume = 0.5\nloudness_target = 0\nstation_catalog_url = \"\"",
            snapcastSection: [
                "enabled = true", "server = \"127.0.0.1:\(server.streamPort)\"", "name = \"den\"",
                "control_port = \(server.controlPort)"
            ])
        defer { _ = box.process.signal(SIGKILL) }
        #expect(try await box.ctlWhenReady("status", timeout: .seconds(20)), "log:\n\(box.logText)")

        let known = try await box.waitForStatus(timeout: .seconds(15)) { $0["snapcast"]?["stream"]?.stringValue != nil }
        let snapcast = try #require(known?["snapcast"], "no group in status; log:\n\(box.logText)")
        #expect(snapcast["stream"] == "radio")
        #expect(snapcast["streams"] == ["radio", "jazz"])
        let group = try #require(try await control.status().group(containing: "den"))
        #expect(snapcast["group"]?.stringValue == (group.name.isEmpty ? group.id : group.name))

        // room-stream: the group switches, the box and the server agree.
        let switched = try await box.ctl("room-stream", "jazz")
        #expect(switched.status == 0, "\(switched)")
        #expect(try await box.status()?["snapcast"]?["stream"] == "jazz")
        #expect(try await control.status().group(containing: "den")?.streamID == "jazz")
        let unknown = try await box.ctl("room-stream", "polka")
        #expect(unknown.status == 1)
        #expect("\(unknown)".contains("radio, jazz"), "\(unknown)")

        // The server sets the box's volume: the media volume follows.
        try await control.setClientVolume(clientID: "den", percent: 20, muted: false)
        let followed = try await box.waitForStatus(timeout: .seconds(10)) { $0["media"]?["volume"] == 0.2 }
        #expect(followed != nil, "media volume did not follow the server; log:\n\(box.logText)")

        // The box sets its volume: the server hears of it.
        #expect(try await box.ctl("volume", "0.3").status == 0)
        let heard = try await waitFor(timeout: .seconds(10), interval: .milliseconds(100)) { () async throws -> Int? in
            let volume = try await control.status().group(containing: "den")?.clients.first { $0.id == "den" }?.volume
            return volume == 30 ? volume : nil
        }
        #expect(heard == 30, "the server did not get the box's volume; log:\n\(box.logText)")
    }

    @Test func aControlPortNobodyListensOnIsAPlainWordsError() async throws {
        let port = try ReservedPort.fresh()
        let client = SnapcastControlClient(host: "127.0.0.1", port: port.port, timeout: .seconds(2))
        do {
            _ = try await client.status()
            Issue.record("a status from nobody")
        } catch {
            guard case .unreachable = error else {
                Issue.record("\(error)")
                return
            }
            #expect("\(error)".contains("cannot reach the snapserver's control port at 127.0.0.1:\(port.port)"))
        }
    }
}

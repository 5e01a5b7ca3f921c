import Basics
import Control
import Glibc
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import TestProcess
import TestSupport
import Testing

@Suite struct ControlServerTests {
    let dir = TemporaryDirectory()

    /// Binds a server, runs it while `body` runs, then cancels it.
    func withServer(
        at path: String? = nil, handler: RecordingHandler = RecordingHandler(),
        limits: ControlServer.Limits = ControlServer.Limits(),
        _ body: (ControlServer) async throws -> Void
    ) async throws {
        let server = try await ControlServer.bind(
            path: path ?? dir.file("control.sock"), handler: handler, limits: limits, executor: StandInExecutor.shared)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await body(server)
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    @Test func answersEveryVerb() async throws {
        let handler = RecordingHandler()
        try await withServer(handler: handler) { server in
            for (_, _, command) in ControlCommandTests.all {
                let path = server.path
                let reply = try await controlCall(command, to: path)
                switch await RecordingHandler.standard(command) {
                case .status:
                    #expect(
                        reply
                            == .ok(
                                .object([
                                    "state": .string("idle"), "realtime_connected": .bool(false), "jarvis_session_id": .null,
                                    "media": .object([
                                        "state": .string("stopped"), "title": .null, "url": .null, "volume": .number(0.5), "ducked": .bool(false)
                                    ]),
                                    "voice_volume": .number(1), "muted": .bool(false), "timers": .array([]), "barge_ins": .number(0),
                                    "echo_turns_ignored": .number(0),
                                    "voice_pauses_resumed": .number(0), "malformed_events": .number(0), "unknown_events": .number(0), "audio": .null,
                                    "snapcast": .null,
                                    "cost_usd": .object(["since_start": .number(0), "today": .number(0)])
                                ])))
                case .done(let message): #expect(reply.message == message)
                case .failed(let message): #expect(reply == .failed(message))
                }
            }
        }
        #expect(handler.commands == ControlCommandTests.all.map(\.2))
    }

    @Test func socketHasMode0660InACreatedDirectoryAndIsRemovedAtShutdown() async throws {
        let path = dir.file("run/jarvis-voice/control.sock")
        try await withServer(at: path) { _ in
            let mode = try #require(fileMode(path))
            #expect(mode & S_IFMT == S_IFSOCK)
            #expect(mode & 0o777 == 0o660)
        }
        #expect(fileMode(path) == nil)
    }

    /// Each handler call waits until all eight are in flight at once: served one by one, the first
    /// would give up after 5 s and the maximum would stay below 8.
    @Test func servesConcurrentClients() async throws {
        let arrived = Atomic<Int>(0)
        let maxInFlight = Atomic<Int>(0)
        let handler = RecordingHandler { command in
            let now = arrived.wrappingAdd(1, ordering: .relaxed).newValue
            maxInFlight.max(now, ordering: .relaxed)
            _ = await waitUntil { arrived.load(ordering: .relaxed) >= 8 }
            return .done("ok \(command.verb)")
        }
        try await withServer(handler: handler) { server in
            let path = server.path
            let replies = try await withThrowingTaskGroup(of: ControlWire.Reply.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await controlCall(.tap, to: path) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.count == 8)
            #expect(replies.allSatisfy { $0.message == "ok tap" })
            #expect(maxInFlight.load(ordering: .relaxed) == 8)
        }
    }

    @Test func aSilentClientDoesNotBlockOthersAndIsDisconnected() async throws {
        let limits = ControlServer.Limits(requestTimeout: .milliseconds(300))
        try await withServer(limits: limits) { server in
            let silent = RawSocket.connect(server.path)
            defer { close(silent) }
            let path = server.path
            let reply = try await controlCall(.tap, to: path)
            #expect(reply.message == "ok: tap")
            let start = ContinuousClock.now
            let silentText = try await blocking { RawSocket.readAll(silent, timeoutMs: 10_000) }
            #expect(silentText == "")  // closed without an answer
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    @Test func badRequestsGetErrors() async throws {
        let limits = ControlServer.Limits(maxLineBytes: 1024)
        try await withServer(limits: limits) { server in
            let garbage = RawSocket.connect(server.path, sending: Array("hello\n".utf8))
            defer { close(garbage) }
            let garbageText = try await blocking { RawSocket.readAll(garbage) }
            #expect(garbageText.hasPrefix(#"{"error":"malformed request"#))

            let badVolume = RawSocket.connect(server.path, sending: Array(#"{"command":"volume","argument":"2"}"#.utf8 + [10]))
            defer { close(badVolume) }
            let badVolumeText = try await blocking { RawSocket.readAll(badVolume) }
            #expect(badVolumeText == #"{"error":"volume must be a number from 0.0 to 1.0, got \"2\"","ok":false}"# + "\n")

            let huge = RawSocket.connect(server.path, sending: [UInt8](repeating: UInt8(ascii: "x"), count: 4096))
            defer { close(huge) }
            let hugeText = try await blocking { RawSocket.readAll(huge) }
            #expect(hugeText.contains("longer than 1024 bytes"))

            // Still serving.
            let path = server.path
            let status = try await controlCall(.status, to: path)
            #expect(status["state"] == .string("idle"))
        }
    }

    /// The handler ignores cancellation and does not return until the client has its reply (or 30 s
    /// pass); the client hears about the timeout at 0.2 s. The handler is released by the test rather
    /// than after a fixed 2 s: under load the server's tasks can be starved for seconds, and a fixed
    /// deadline then measured the machine, not whether the reply waits for the handler.
    @Test func handlerTimeoutIsReported() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let release = loop.makePromise(of: Void.self)
        let fallback = loop.scheduleTask(in: .seconds(30)) { release.succeed(()) }
        final class Flag: Sendable { let value = Atomic<Bool>(false) }
        let handlerReturned = Flag()
        let handler = RecordingHandler { _ in
            // A wait that cancellation cannot shorten (like awaiting a busy actor).
            try? await release.futureResult.get()
            handlerReturned.value.store(true, ordering: .sequentiallyConsistent)
            return .done("late")
        }
        try await withServer(handler: handler, limits: ControlServer.Limits(handlerTimeout: .milliseconds(200))) { server in
            let path = server.path
            let start = ContinuousClock.now
            let reply = try await controlCall(.tap, to: path)
            let elapsed = ContinuousClock.now - start
            let returned = handlerReturned.value.load(ordering: .sequentiallyConsistent)
            #expect(!returned, "the reply waited for the handler (\(elapsed))")
            #expect(elapsed >= .milliseconds(200))
            loop.execute {
                fallback.cancel()
                release.succeed(())
            }
            guard case .failed(let message) = reply else {
                Issue.record("expected a failure, got \(reply)")
                return
            }
            #expect(message.hasPrefix("tap: the service did not answer within"))
        }
    }

    @Test func staleSocketIsReplaced() async throws {
        let path = dir.file("control.sock")
        RawSocket.makeStale(path)
        #expect(throws: ControlClientError.notRunning(path: path)) { try ControlClient.send(.status, to: path) }
        try await withServer(at: path) { server in
            let path = server.path
            let status = try await controlCall(.status, to: path)
            #expect(status["state"] == .string("idle"))
        }
    }

    @Test func secondServerOnALiveSocketRefuses() async throws {
        let path = dir.file("control.sock")
        try await withServer(at: path) { _ in
            await #expect(throws: ControlServerError.alreadyRunning(path: path)) {
                _ = try await ControlServer.bind(path: path, handler: RecordingHandler())
            }
            #expect(ControlServerError.alreadyRunning(path: path).description.contains("another jarvis-voice is running"))
            // The first one is unharmed.
            let status = try await controlCall(.status, to: path)
            #expect(status["state"] == .string("idle"))
        }
    }

    @Test func aPathThatIsNotASocketIsLeftAlone() async throws {
        let path = dir.write("control.sock", "precious")
        await #expect(throws: ControlServerError.notASocket(path: path)) {
            _ = try await ControlServer.bind(path: path, handler: RecordingHandler())
        }
        #expect(readText(path) == "precious")
    }

    @Test func noServiceIsAClearError() {
        let path = dir.file("absent.sock")
        #expect(throws: ControlClientError.notRunning(path: path)) { try ControlClient.send(.tap, to: path) }
        #expect(ControlClientError.notRunning(path: path).description == "jarvis-voice is not running (no control socket at \(path))")
    }

}

extension ControlWire.Reply {
    subscript(key: String) -> JSONValue? {
        if case .ok(let result) = self { return result[key] }
        return nil
    }
}

@Suite struct ControlServerLifecycleTests {
    let dir = TemporaryDirectory()

    @Test func gracefulShutdownOfTheServiceGroupRemovesTheSocket() async throws {
        let path = dir.file("control.sock")
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let server = try await ControlServer.bind(path: path, handler: RecordingHandler(), logger: logger, executor: StandInExecutor.shared)
        let group = ServiceGroup(services: [server], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let status = try await controlCall(.status, to: path)
            #expect(status["state"] == .string("idle"))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(fileMode(path) == nil)
        #expect(throws: ControlClientError.notRunning(path: path)) { try ControlClient.send(.status, to: path) }
    }
}

extension ControlServerTests {
    @Test func clientsBeyondTheLimitAreToldBusy() async throws {
        let (held, release) = AsyncStream.makeStream(of: Never.self)
        let handler = RecordingHandler { _ in
            for await _ in held {}  // busy until the test has seen the second client refused
            return .done("slow")
        }
        try await withServer(handler: handler, limits: ControlServer.Limits(maxConnections: 1)) { server in
            defer { release.finish() }
            let path = server.path
            async let first = controlCall(.tap, to: path)
            #expect(await waitUntil { !handler.commands.isEmpty })
            let second = try await controlCall(.status, to: path)
            #expect(second == .failed("busy: more than 1 control clients at once; try again"))
            release.finish()
            #expect(try await first.message == "slow")
        }
        #expect(handler.commands == [.tap])
    }
}

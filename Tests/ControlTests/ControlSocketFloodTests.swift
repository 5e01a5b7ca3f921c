import Control
import Glibc
import Synchronization
import TestProcess
import TestSupport
import Testing

/// A local client floods the control socket — far more connections than the limit, all silent, one
/// dribbling a byte at a time (slowloris), one sending a line far over the length limit — while the
/// owner's `ctl status` must still get its answer. The request timeout is a minute here, so nothing in
/// the flood times out during the test: `status` can only be answered because the server pushes the
/// oldest silent clients out, not because they gave up.
@Suite struct ControlSocketFloodTests {
    let dir = TemporaryDirectory()

    @Test func statusAnswersWhileAClientFloodsTheSocket() async throws {
        let limits = ControlServer.Limits(requestTimeout: .seconds(60), maxConnections: 16)
        let server = try await ControlServer.bind(
            path: dir.file("control.sock"), handler: RecordingHandler(), limits: limits, executor: StandInExecutor.shared)
        let path = server.path
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }

            // Four times the connection limit, all silent and held open.
            let silent = (0..<64).map { _ in RawSocket.connect(path) }
            defer { for socket in silent { close(socket) } }

            // Slowloris: one byte every 20 ms, never a newline, for as long as the test runs.
            let stop = StopFlag()
            let dribbler = RawSocket.connect(path)
            defer { close(dribbler) }
            let dribbling = Task {
                try await blocking {
                    var sent = 0
                    while !stop.value.load(ordering: .relaxed) {
                        var byte = UInt8(ascii: " ")
                        if send(dribbler, &byte, 1, Int32(MSG_NOSIGNAL)) != 1 { break }
                        sent += 1
                        usleep(20_000)
                    }
                    return sent
                }
            }

            // A 1 MiB line against the 64 KiB limit: refused and hung up on, not buffered.
            let huge = try await blocking {
                let fd = RawSocket.connect(path, sending: [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20))
                defer { close(fd) }
                return RawSocket.readAll(fd, timeoutMs: 30_000)
            }
            #expect(huge.isEmpty || huge.contains("longer than"), "\(huge)")

            for _ in 0..<3 {
                let start = ContinuousClock.now
                let reply = try await controlCall(.status, to: path)
                #expect(reply["state"] == .string("idle"), "\(reply)")
                #expect(ContinuousClock.now - start < .seconds(30))
            }

            // The oldest silent clients were pushed out: they see the connection closed (EOF) long
            // before their own 60 s request timeout.
            let first = silent[0]
            let evicted = try await blocking { Self.closedByPeer(first, timeoutMs: 30_000) }
            #expect(evicted)

            stop.value.store(true, ordering: .relaxed)
            _ = try await dribbling.value
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    private final class StopFlag: Sendable { let value = Atomic<Bool>(false) }

    /// True when the peer closes the connection (EOF, nothing sent) within `timeoutMs`.
    private static func closedByPeer(_ fd: Int32, timeoutMs: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, timeoutMs) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }
}

import Logging
import Synchronization
import Testing

@testable import Systemd

#if canImport(Glibc)
    import Glibc
#endif

final class CapturedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

@Suite struct JournaldLogHandlerTests {
    @Test func priorityPrefixes() {
        let expected: [(Logger.Level, String)] = [
            (.trace, "<7>"), (.debug, "<7>"), (.info, "<6>"), (.notice, "<5>"),
            (.warning, "<4>"), (.error, "<3>"), (.critical, "<2>")
        ]
        for (level, prefix) in expected {
            #expect(JournaldLogHandler.format(level: level, label: "audio", message: "m", metadata: [:]) == "\(prefix)audio: m")
        }
    }

    @Test func metadataIsSortedAndQuoted() {
        let line = JournaldLogHandler.format(
            level: .warning, label: "realtime", message: "reconnecting\nsoon",
            metadata: [
                "rt.attempt": "3", "audio.xruns": .stringConvertible(2),
                "reason": "socket closed", "quote": "say \"hi\"", "empty": "", "list": ["a", "b"], "map": ["k": "v", "a": ["x"]]
            ]
        )
        #expect(
            line
                == #"<4>realtime: reconnecting\nsoon audio.xruns=2 empty="" list=[a,b] map="{a=[x],k=v}" quote="say \"hi\"" reason="socket closed" rt.attempt=3"#
        )
    }

    @Test func handlerMergesMetadataAndFiltersLevels() {
        let captured = CapturedLines()
        var logger = Logger(label: "jarvis") { label in
            JournaldLogHandler(
                label: label, logLevel: .info,
                metadataProvider: .init { ["conversation": "7"] },
                output: { captured.append($0) }
            )
        }
        logger[metadataKey: "device"] = "hw:1"
        logger.debug("not shown")
        logger.info("asked", metadata: ["jarvis.duration_ms": "812", "device": "override"])
        logger.notice("ready")
        logger.logLevel = .debug
        logger.debug("now shown")
        #expect(
            captured.all == [
                "<6>jarvis: asked conversation=7 device=override jarvis.duration_ms=812",
                "<5>jarvis: ready conversation=7 device=hw:1",
                "<7>jarvis: now shown conversation=7 device=hw:1"
            ])
    }

    @Test func writerWritesWholeLinesAndDropsWhenBlocked() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        let writer = StandardErrorWriter(fd: fds[1], budgetMilliseconds: 20)
        writer.write(line: "<6>a: first")
        #expect(readAvailable(fds[0]) == "<6>a: first\n")

        // Fill the pipe so the next write would block.
        let flags = fcntl(fds[1], F_GETFL)
        _ = fcntl(fds[1], F_SETFL, flags | O_NONBLOCK)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        var filled = 0
        while chunk.withUnsafeBytes({ Glibc.write(fds[1], $0.baseAddress, $0.count) }) > 0 { filled += 4096 }
        _ = fcntl(fds[1], F_SETFL, flags)

        let clock = ContinuousClock()
        let start = clock.now
        writer.write(line: "<6>a: lost")
        #expect(clock.now - start < .seconds(2))
        #expect(writer.droppedLines == 1)

        // Drain, then the next line reports the drop first.
        var drained = 0
        while drained < filled { drained += readAvailable(fds[0]).utf8.count }
        writer.write(line: "<6>a: back")
        #expect(readAvailable(fds[0]) == "<4>jarvis-voice: 1 log lines dropped (stderr blocked)\n<6>a: back\n")
        #expect(writer.droppedLines == 0)
    }

    private func readAvailable(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = read(fd, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }
}

import Glibc
import Synchronization
import TestProcess
import Testing

/// scripts/rtcheck (the LD_PRELOAD realtime-discipline checker) against `rtcheck-probe`, whose
/// "rt:test" thread renders a real `Mixer` while the main thread feeds, ducks and flushes it.
@Suite(.serialized) struct RTCheckTests {
    @Test func cleanRealtimeLoopHasNoViolations() async throws {
        let report = try await RTCheck.run(mode: "clean")
        #expect(report["rt_named"] == 1)
        // Optimized builds may make no interposed call at all, so the thread need not be listed.
        #expect((report["thread.rt:test"] ?? 0) == 0)
        #expect(report["total"] == 0)
        #expect(report["periods"].map { $0 > 50 } == true)
        #expect(report["take_backs"].map { $0 > 0 } == true, "the paused voice was taken back on the realtime thread")
    }

    @Test func allocationOnTheRealtimeThreadIsCounted() async throws {
        let report = try await RTCheck.run(mode: "allocate")
        #expect(report["rt_threads"] == 1)
        #expect(report["thread.rt:test"] == report["total"])
        #expect(report["malloc"].map { $0 > 10 } == true)
        #expect(report["free"].map { $0 > 10 } == true)
        #expect(report["pthread_mutex_lock"] == 0)
    }

    @Test func lockOnTheRealtimeThreadIsCounted() async throws {
        let report = try await RTCheck.run(mode: "lock")
        #expect(report["pthread_mutex_lock"].map { $0 > 10 } == true)
        #expect(report["malloc"] == 0)
    }

    @Test func writingToStderrOnTheRealtimeThreadIsCounted() async throws {
        let report = try await RTCheck.run(mode: "log")
        #expect(report["write_stdio"].map { $0 > 10 } == true)
        #expect(report["malloc"] == 0)
    }

    @Test func violationsDuringWarmUpAreNotCounted() async throws {
        // The whole run is inside the warm-up.
        let report = try await RTCheck.run(mode: "allocate", warmupMilliseconds: 10_000)
        #expect(report["rt_threads"] == 1)
        #expect(report["total"] == 0)
    }
}

struct RTCheckFailure: Error, CustomStringConvertible {
    var description: String
}

enum RTCheck {
    static let repository: String = {
        var path = #filePath  // <repo>/Tests/AudioCoreTests/RTCheckTests.swift
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    private static let compiled = Mutex<Result<String, RTCheckFailure>?>(nil)
    /// Holds the compiled checker for the whole test process (a static is never released).
    private static let workDirectory = TemporaryDirectory(prefix: "rtcheck-test")

    /// Compiles the checker once per test process into a private directory (the suite is serialized).
    static func library() async throws -> String {
        if let done = compiled.withLock({ $0 }) { return try done.get() }
        let output = workDirectory.file("rtcheck.so")
        let cc = try await ChildProcess.run([
            "cc", "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", output,
            repository + "/scripts/rtcheck/rtcheck.c", "-ldl", "-lpthread"
        ])
        let result: Result<String, RTCheckFailure> =
            cc.status == 0
            ? .success(output) : .failure(RTCheckFailure(description: "cc exited with \(cc.status): \(cc.stderr)"))
        compiled.withLock { $0 = result }
        return try result.get()
    }

    /// The probe executable sits next to the test binary in the build directory.
    static var probe: String { ChildProcess.builtExecutable("rtcheck-probe") ?? "rtcheck-probe (not built)" }

    /// Runs the probe under the checker and returns the report's numbers plus the probe's `periods`.
    static func run(mode: String, warmupMilliseconds: Int = 100) async throws -> [String: Int] {
        let library = try await library()
        let reportPath = String(library.dropLast("rtcheck.so".count)) + "report-\(mode)-\(warmupMilliseconds).txt"
        let probeRun = try await ChildProcess.run(
            [probe, mode, "400"],
            environment: [
                "LD_PRELOAD": library, "RTCHECK_REPORT": reportPath,
                "RTCHECK_WARMUP_MS": "\(warmupMilliseconds)"
            ],
            stderr: .discard)
        guard probeRun.status == 0 else { throw RTCheckFailure(description: "\(probe) \(mode) exited with \(probeRun.status)") }
        var values: [String: Int] = [:]
        let lines = readText(reportPath).split(separator: "\n") + probeRun.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" })
        for line in lines {
            guard !line.hasPrefix("#"), let eq = line.lastIndex(of: "="), let v = Int(line[line.index(after: eq)...]) else { continue }
            values[String(line[..<eq])] = v
        }
        guard values["total"] != nil else { throw RTCheckFailure(description: "no report at \(reportPath)") }
        return values
    }

    static func readText(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

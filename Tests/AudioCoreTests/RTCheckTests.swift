import Glibc
import Testing

/// scripts/rtcheck (the LD_PRELOAD realtime-discipline checker) against `rtcheck-probe`, whose
/// "rt:test" thread renders a real `Mixer` while the main thread feeds, ducks and flushes it.
@Suite(.serialized) struct RTCheckTests {
    @Test func cleanRealtimeLoopHasNoViolations() throws {
        let report = try RTCheck.run(mode: "clean")
        #expect(report["rt_named"] == 1)
        // Optimized builds may make no interposed call at all, so the thread need not be listed.
        #expect((report["thread.rt:test"] ?? 0) == 0)
        #expect(report["total"] == 0)
        #expect(report["periods"].map { $0 > 50 } == true)
    }

    @Test func allocationOnTheRealtimeThreadIsCounted() throws {
        let report = try RTCheck.run(mode: "allocate")
        #expect(report["rt_threads"] == 1)
        #expect(report["thread.rt:test"] == report["total"])
        #expect(report["malloc"].map { $0 > 10 } == true)
        #expect(report["free"].map { $0 > 10 } == true)
        #expect(report["pthread_mutex_lock"] == 0)
    }

    @Test func lockOnTheRealtimeThreadIsCounted() throws {
        let report = try RTCheck.run(mode: "lock")
        #expect(report["pthread_mutex_lock"].map { $0 > 10 } == true)
        #expect(report["malloc"] == 0)
    }

    @Test func writingToStderrOnTheRealtimeThreadIsCounted() throws {
        let report = try RTCheck.run(mode: "log")
        #expect(report["write_stdio"].map { $0 > 10 } == true)
        #expect(report["malloc"] == 0)
    }

    @Test func violationsDuringWarmUpAreNotCounted() throws {
        // The whole run is inside the warm-up.
        let report = try RTCheck.run(mode: "allocate", warmupMilliseconds: 10_000)
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

    /// Compiles the checker once per test process into a private directory.
    static let library: Result<String, RTCheckFailure> = {
        var template = Array("/tmp/rtcheck-test-XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            return .failure(RTCheckFailure(description: "mkdtemp failed"))
        }
        let output = String(cString: dir) + "/rtcheck.so"
        let status = spawnAndWait(["cc", "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", output,
                                   repository + "/scripts/rtcheck/rtcheck.c", "-ldl", "-lpthread"], environment: [])
        return status == 0 ? .success(output) : .failure(RTCheckFailure(description: "cc exited with \(status)"))
    }()

    /// The probe executable sits next to the test binary in the build directory.
    static var probe: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let exe = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        var dir = String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)])
        // On Linux the test binary is `<build>/debug/<package>PackageTests.xctest`; tolerate a bundle layout too.
        while !dir.isEmpty, access(dir + "/rtcheck-probe", X_OK) != 0 {
            dir = String(dir[..<(dir.lastIndex(of: "/") ?? dir.startIndex)])
        }
        return dir + "/rtcheck-probe"
    }

    /// Runs the probe under the checker and returns the report's numbers plus the probe's `periods`.
    static func run(mode: String, warmupMilliseconds: Int = 100) throws -> [String: Int] {
        let library = try library.get()
        let reportPath = String(library.dropLast("rtcheck.so".count)) + "report-\(mode)-\(warmupMilliseconds).txt"
        let stdoutPath = reportPath + ".out"
        let status = spawnAndWait(
            [probe, mode, "400"],
            environment: ["LD_PRELOAD=\(library)", "RTCHECK_REPORT=\(reportPath)",
                          "RTCHECK_WARMUP_MS=\(warmupMilliseconds)"],
            stdoutPath: stdoutPath, quiet: true)
        guard status == 0 else { throw RTCheckFailure(description: "\(probe) \(mode) exited with \(status)") }
        var values: [String: Int] = [:]
        let lines = readText(reportPath).split(separator: "\n") + readText(stdoutPath).split(whereSeparator: { $0 == " " || $0 == "\n" })
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

    static func inheritedDescriptors() -> [Int32] {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        let own = dirfd(dir)
        var fds: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if let fd = Int32(name), fd != own { fds.append(fd) }
        }
        return fds
    }

    /// posix_spawnp with extra environment variables; returns the exit status (or 128 + signal).
    static func spawnAndWait(_ argv: [String], environment: [String], stdoutPath: String? = nil, quiet: Bool = false) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdoutPath { posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        // Other tests' sockets must not stay open in the child (see ConfigurationTests/TestFiles.swift).
        for fd in inheritedDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        var env: [String] = []
        var e = environ
        while let entry = e.pointee {
            env.append(String(cString: entry))
            e += 1
        }
        env += environment
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup($0) } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, nil, cArgs, cEnv)
        guard rc == 0 else { return 127 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

import Glibc

/// One reading of a process's footprint from /proc: memory (KiB), descriptors, threads, CPU time.
struct ProcessSample {
    /// VmRSS, RssAnon from /proc/PID/status.
    var rssKiB = 0
    var anonKiB = 0
    /// Pss and Pss_Anon from /proc/PID/smaps_rollup.
    var pssKiB = 0
    var pssAnonKiB = 0
    var fds = 0
    var threads = 0
    /// utime + stime in seconds.
    var cpuSeconds = 0.0

    /// Nil once the process is gone.
    static func read(pid: Int32) -> ProcessSample? {
        guard let status = ProcFile.text("/proc/\(pid)/status"),
            let rollup = ProcFile.text("/proc/\(pid)/smaps_rollup"),
            let stat = ProcFile.text("/proc/\(pid)/stat")
        else { return nil }
        var sample = ProcessSample()
        sample.rssKiB = ProcFile.kib(status, "VmRSS:") ?? 0
        sample.anonKiB = ProcFile.kib(status, "RssAnon:") ?? 0
        sample.threads = ProcFile.kib(status, "Threads:") ?? 0
        sample.pssKiB = ProcFile.kib(rollup, "Pss:") ?? 0
        sample.pssAnonKiB = ProcFile.kib(rollup, "Pss_Anon:") ?? 0
        sample.fds = ProcFile.entries("/proc/\(pid)/fd")
        sample.cpuSeconds = ProcFile.cpuSeconds(stat: stat) ?? 0
        return sample
    }
}

/// Small readers for /proc text files.
enum ProcFile {
    static func text(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8_192)
        while bytes.count < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The first number on the line starting with `key` ("VmRSS:\t  1234 kB" → 1234).
    static func kib(_ text: String, _ key: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            return line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }

    /// Entries of a directory other than . and ..
    static func entries(_ path: String) -> Int {
        guard let dir = opendir(path) else { return 0 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            }
            if !isDot { count += 1 }
        }
        return count
    }

    /// utime + stime (fields 14 and 15 of /proc/PID/stat, after the parenthesised command name).
    static func cpuSeconds(stat: String) -> Double? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3), so utime (14) is fields[11] and stime (15) fields[12].
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

import Glibc
import Synchronization

/// Audio fixtures made at test time with sox or ffmpeg (and cached per process), so no binaries are committed.
public enum MediaFixtures {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private static let cache = Mutex<[String: [UInt8]]>([:])

    /// A sine MP3 made by `sox -D -n -r RATE -c CH -C KBPS out.mp3 synth SECONDS sine FREQ`.
    public static func sineMP3(
        seconds: Double = 2, frequency: Int = 440, sampleRate: Int = 44_100,
        channels: Int = 2, kbps: Int = 128
    ) throws -> [UInt8] {
        try soxOutput(
            extension: "mp3",
            [
                "-D", "-n", "-r", String(sampleRate), "-c", String(channels), "-C", String(kbps),
                "%OUT%", "synth", String(seconds), "sine", String(frequency), "vol", "0.5"
            ])
    }

    /// Raw signed 16-bit little-endian PCM of a sine, as interleaved samples.
    public static func sinePCM(seconds: Double, frequency: Int, sampleRate: Int, channels: Int) throws -> [Int16] {
        let bytes = try soxOutput(
            extension: "s16",
            [
                "-D", "-n", "-r", String(sampleRate), "-c", String(channels), "-b", "16", "-e", "signed-integer",
                "%OUT%", "synth", String(seconds), "sine", String(frequency), "vol", "0.5"
            ])
        return stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    /// A sine (amplitude 0.5) encoded by ffmpeg into a file of extension `ext` with `encoder`'s options,
    /// e.g. `["-c:a", "aac", "-f", "adts"]`.
    public static func ffmpegSine(
        _ ext: String, encoder: [String], seconds: Double = 2, frequency: Int = 440, sampleRate: Int = 44_100, channels: Int = 2
    ) throws -> [UInt8] {
        try toolOutput(
            "ffmpeg", extension: ext,
            [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=\(sampleRate)",
                // lavfi's sine is at 1/8 of full scale; pan copies it to both channels at full level
                "-af", channels == 2 ? "volume=4,pan=stereo|c0=c0|c1=c0" : "volume=4", "-t", String(seconds)
            ] + encoder + ["-y", "%OUT%"])
    }

    /// Runs sox with `%OUT%` replaced by a temporary file of that extension and returns the file's bytes.
    public static func soxOutput(extension ext: String, _ arguments: [String]) throws -> [UInt8] {
        try toolOutput("sox", extension: ext, arguments)
    }

    /// Runs `tool` with `%OUT%` replaced by a temporary file of that extension and returns the file's bytes.
    public static func toolOutput(_ tool: String, extension ext: String, _ arguments: [String]) throws -> [UInt8] {
        let key = tool + " " + ext + " " + arguments.joined(separator: " ")
        if let cached = cache.withLock({ $0[key] }) { return cached }
        var template = Array("/tmp/jarvis-media-fixture-XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp failed")
        }
        let directory = String(cString: dir)
        let output = directory + "/fixture." + ext
        defer {
            unlink(output)
            rmdir(directory)
        }
        let argv = [tool] + arguments.map { $0 == "%OUT%" ? output : $0 }
        let status = spawnAndWait(argv)
        guard status == 0 else { throw Failure(description: "\(argv.joined(separator: " ")) exited with \(status)") }
        guard let bytes = readFile(output), !bytes.isEmpty else { throw Failure(description: "\(tool) wrote nothing to \(output)") }
        cache.withLock { $0[key] = bytes }
        return bytes
    }

    /// posix_spawnp, stderr to /dev/null, no inherited descriptors beyond stdio; the exit status (or 128 + signal; 127 if it could not start).
    public static func spawnAndWait(_ argv: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The child must not inherit other tests' sockets: a listening socket kept open in sox makes a
        // "stopped" stand-in server still accept connections (a client then hangs instead of being refused).
        for fd in openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for arg in cArgs { free(arg) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, nil, &cArgs, environ)
        guard rc == 0 else { return 127 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// The descriptors open in this process (from /proc/self/fd). glibc ignores closing one that has
    /// been closed in the meantime.
    static func openDescriptors() -> [Int32] {
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

    public static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }
}

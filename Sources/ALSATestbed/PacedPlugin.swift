import CShims
import Glibc

/// Finds the paced test PCM plugin (`libasound_module_pcm_jvpaced.so`) that SwiftPM builds next to
/// the test and product binaries; if it is missing, compiles `Sources/JVPacedPCM/jvpaced.c` with `cc`.
public enum PacedPlugin {
    public static let fileName = "libasound_module_pcm_jvpaced.so"

    /// Absolute path of the plugin library; nil if it is neither built nor buildable.
    public static var libraryPath: String? { located }

    private static let located: String? = {
        if let dir = executableDirectory() {
            let candidate = dir + "/" + fileName
            if access(candidate, R_OK) == 0 { return candidate }
        }
        return compileFromSource()
    }()

    static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard n > 0 else { return nil }
        let path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    private static func compileFromSource() -> String? {
        // .../Sources/ALSATestbed/PacedPlugin.swift -> .../Sources/JVPacedPCM/jvpaced.c
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 3 else { return nil }
        parts.removeLast(2)  // ALSATestbed/PacedPlugin.swift
        let source = parts.joined(separator: "/") + "/JVPacedPCM/jvpaced.c"
        let dir = "/tmp/jarvis-voice-jvpaced-\(getuid())"
        mkdir(dir, 0o700)
        let output = dir + "/" + fileName
        let status = run(["cc", "-DPIC", "-O2", "-shared", "-fPIC", "-o", output, source, "-lasound"])
        return status == 0 ? output : nil
    }

    /// Runs a program from PATH and waits; returns its exit status (or -1).
    static func run(_ arguments: [String]) -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Children must not inherit this process's descriptors: NIO's sockets are not close-on-exec,
        // and a child holding a test server's listening socket keeps it accepting after the server
        // stopped (connections then reset instead of being refused) while suites run in parallel.
        cshim_spawn_actions_close_from(&actions, 3)
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}

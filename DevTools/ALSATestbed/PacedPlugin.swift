import Glibc
import TestProcess

/// Finds the paced test PCM plugin (`libasound_module_pcm_jvpaced.so`) that SwiftPM builds next to
/// the test and product binaries; if it is missing, compiles `DevTools/JVPacedPCM/jvpaced.c` with `cc`.
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

    static func executableDirectory() -> String? { ChildProcess.buildDirectory }

    private static func compileFromSource() -> String? {
        // .../DevTools/ALSATestbed/PacedPlugin.swift -> .../DevTools/JVPacedPCM/jvpaced.c
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 3 else { return nil }
        parts.removeLast(2)  // ALSATestbed/PacedPlugin.swift
        let source = parts.joined(separator: "/") + "/JVPacedPCM/jvpaced.c"
        let dir = "/tmp/jarvis-voice-jvpaced-\(getuid())"
        mkdir(dir, 0o700)
        let output = dir + "/" + fileName
        // Synchronous: this is a lazy static initializer, and it runs at most once per test process.
        let cc = try? ChildProcess.runBlocking(["cc", "-DPIC", "-O2", "-shared", "-fPIC", "-o", output, source, "-lasound", "-lm"])
        return cc?.status == 0 ? output : nil
    }
}

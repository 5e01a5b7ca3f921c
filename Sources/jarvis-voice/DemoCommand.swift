import ArgumentParser
import Glibc
import Systemd

/// `jarvis-voice demo`: hands over to the development tool `jarvis-voice-demo` next to this
/// executable (same arguments), which holds the stand-in servers and test PCMs the shipped binary
/// does not link. Without it, says how to build it.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run one spoken turn against built-in stand-ins (runs jarvis-voice-demo; development checkouts only).",
        discussion: """
            The demo lives in its own executable, jarvis-voice-demo, which `swift build` puts next to \
            jarvis-voice in a checkout; this command runs it with the same arguments \
            (see `jarvis-voice-demo --help`). An installed jarvis-voice has no demo.
            """
    )

    static let demoExecutableName = "jarvis-voice-demo"

    @Argument(parsing: .captureForPassthrough, help: "Arguments for jarvis-voice-demo.")
    var arguments: [String] = []

    func run() throws {
        guard let directory = Self.executableDirectory() else {
            Self.fail("cannot read /proc/self/exe to find \(Self.demoExecutableName)")
        }
        let demo = directory + "/" + Self.demoExecutableName
        guard access(demo, X_OK) == 0 else {
            Self.fail(
                """
                \(demo) is missing: the demo is a development tool, built from a checkout with \
                `scripts/install-deps && swift build` (it builds jarvis-voice-demo next to jarvis-voice); \
                then run .build/debug/jarvis-voice-demo
                """)
        }
        fflush(nil)
        let argv = ([demo] + arguments).map { strdup($0) } + [nil]
        execv(demo, argv)
        Self.fail("execv \(demo): \(String(cString: strerror(errno)))")
    }

    private static func fail(_ message: String) -> Never {
        fflush(nil)
        StandardErrorWriter.shared.write(line: "jarvis-voice demo: \(message)")
        Glibc.exit(1)
    }

    private static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}

import TestProcess

/// The TOML file the command-line tests hand `jarvis-voice`: the devices, the stand-ins' URLs and secret
/// files, the control socket; a table is written only when something is set in it. Extra lines go in
/// as they are (`key = value`).
struct ServiceConfig {
    var capture: String
    var playback: String
    var audio: [String] = []
    var realtimeURL: String?
    var apiKeyFile: String?
    var realtime: [String] = []
    var jarvisURL: String?
    var tokenFile: String?
    /// `[button]` lines; empty leaves the table out.
    var button = ["enabled = false"]
    var controlSocket: String?
    var media: [String] = []
    var timers: [String] = []
    var snapcast: [String] = []
    var logLevel: String?

    var toml: String {
        var lines = ["[audio]", "capture_device = \(quoted(capture))", "playback_device = \(quoted(playback))"] + audio
        table("realtime", [realtimeURL.map { "url = \(quoted($0))" }, apiKeyFile.map { "api_key_file = \(quoted($0))" }], realtime, into: &lines)
        table("jarvis", [jarvisURL.map { "url = \(quoted($0))" }, tokenFile.map { "token_file = \(quoted($0))" }], [], into: &lines)
        table("button", [], button, into: &lines)
        table("control", [controlSocket.map { "socket = \(quoted($0))" }], [], into: &lines)
        table("media", [], media, into: &lines)
        table("timers", [], timers, into: &lines)
        table("snapcast", [], snapcast, into: &lines)
        table("log", [logLevel.map { "level = \(quoted($0))" }], [], into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the file (owner-only) into `dir` as `name`; returns its path.
    func write(to dir: TemporaryDirectory, as name: String = "config.toml") -> String {
        dir.write(name, toml)
    }

    private func quoted(_ value: String) -> String { "\"\(value)\"" }

    private func table(_ name: String, _ known: [String?], _ extra: [String], into lines: inout [String]) {
        let body = known.compactMap { $0 } + extra
        guard !body.isEmpty else { return }
        lines += ["[\(name)]"] + body
    }
}

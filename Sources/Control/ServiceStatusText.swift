import Basics

/// `ctl status` for a person at a terminal: the `status` object (ARCHITECTURE §9) as a few labelled
/// lines. Read from the JSON the service sent, so a field a newer service adds is simply not shown.
public enum ServiceStatusText {
    public static func render(_ status: JSONValue) -> String {
        var lines: [String] = []
        let state = status["state"]?.stringValue.map { String($0.map { $0 == "_" ? " " : $0 }) } ?? "unknown"
        let connected = status["realtime_connected"] == .bool(true) ? "connected" : "not connected"
        lines.append("state: \(state) (Realtime \(connected))")
        let microphone = status["muted"] == .bool(true) ? "off (muted)" : "on"
        lines.append("microphone: \(microphone); voice volume \(number(status["voice_volume"]))")
        if let media = status["media"] {
            let what = media["title"]?.stringValue.map { "\"\($0)\"" } ?? media["url"]?.stringValue ?? ""
            let ducked = media["ducked"] == .bool(true) ? " (ducked)" : ""
            let state = media["state"]?.stringValue ?? "stopped"
            lines.append("media: \(state)\(what.isEmpty || state == "stopped" ? "" : " " + what); volume \(number(media["volume"]))\(ducked)")
        }
        if case .array(let timers)? = status["timers"], !timers.isEmpty {
            lines.append("timers: " + timers.map(timer).joined(separator: "; "))
        } else {
            lines.append("timers: none")
        }
        if let cost = status["cost_usd"] {
            lines.append("cost: \(dollars(cost["today"])) today, \(dollars(cost["since_start"])) since start")
        }
        lines.append("Jarvis session: \(status["jarvis_session_id"]?.stringValue ?? "none")")
        if let audio = status["audio"], audio != .null {
            let capture = audio["capture_running"] == .bool(true) ? "running" : "stopped"
            let playback = audio["playback_running"] == .bool(true) ? "running" : "stopped"
            lines.append(
                "audio: capture \(capture), playback \(playback); echo reduction \(number(audio["echo_reduction_db"])) dB; "
                    + "xruns \(number(audio["capture_xruns"])) capture, \(number(audio["playback_xruns"])) playback")
        }
        if let snapcast = status["snapcast"], snapcast != .null {
            lines.append(rooms(snapcast))
        }
        return lines.joined(separator: "\n")
    }

    /// "rooms: kitchen in the group of home.lan:1704, playing flac in sync (0.02 ms); volume 0.4", and when
    /// the control port told it, "rooms: group 4a3f plays radio; streams: radio, jazz".
    private static func rooms(_ snapcast: JSONValue) -> String {
        let name = snapcast["name"]?.stringValue ?? "?"
        let server = snapcast["server"]?.stringValue ?? "?"
        let state: String
        if snapcast["connected"] != .bool(true) {
            state = "not connected"
        } else if snapcast["playing"] == .bool(true) {
            let codec = snapcast["codec"]?.stringValue.map { " \($0)" } ?? ""
            state = "playing\(codec) in sync (\(number(snapcast["sync_error_ms"])) ms)"
        } else {
            state = snapcast["server_muted"] == .bool(true) ? "muted by the server" : "connected, nothing playing"
        }
        var lines = "rooms: \(name) in the group of \(server), \(state); volume \(number(snapcast["volume"]))"
        if let stream = snapcast["stream"]?.stringValue {
            let group = snapcast["group"]?.stringValue.map { "group \($0)" } ?? "the group"
            var streams: [String] = []
            if case .array(let list)? = snapcast["streams"] { streams = list.compactMap(\.stringValue) }
            lines += "\nrooms: \(group) plays \(stream); streams: \(streams.joined(separator: ", "))"
        }
        return lines
    }

    /// "tea (#1) in 4:05", "#2 ringing".
    private static func timer(_ timer: JSONValue) -> String {
        let id = "#\(timer["id"]?.stringValue ?? "?")"
        let name = timer["label"]?.stringValue.map { "\($0) (\(id))" } ?? id
        guard timer["state"]?.stringValue != "ringing" else { return "\(name) ringing" }
        let seconds = max(0, Int(timer["due_in_s"]?.numberValue ?? 0))
        let minutes = seconds / 60, hours = minutes / 60
        let left = hours > 0 ? "\(hours):\(two(minutes % 60)):\(two(seconds % 60))" : "\(minutes):\(two(seconds % 60))"
        return "\(name) in \(left)"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// 0.3, 1, 18.5: as a person would write it.
    private static func number(_ value: JSONValue?) -> String {
        guard let number = value?.numberValue, number.isFinite else { return "?" }
        return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\((number * 100).rounded() / 100)"
    }

    private static func dollars(_ value: JSONValue?) -> String {
        let cents = Int(((value?.numberValue ?? 0) * 10_000).rounded())
        return "$\(cents / 10_000).\(String(repeating: "0", count: 4 - String(cents % 10_000).count))\(cents % 10_000)"
    }
}

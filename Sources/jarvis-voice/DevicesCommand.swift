import ALSA
import ArgumentParser

/// `jarvis-voice devices`: what the configuration's `capture_device` / `playback_device` can name.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List ALSA PCMs (for audio.capture_device / audio.playback_device)."
    )

    func run() throws {
        let hints = try DeviceHint.pcms()
        print(Self.render(hints))
    }

    static func render(_ hints: [DeviceHint]) -> String {
        var lines = ["ALSA PCMs (capture: in, playback: out):"]
        if hints.isEmpty { lines.append("  (none; is there a sound card, or an ALSA configuration defining PCMs?)") }
        let width = min(40, hints.map(\.name.count).max() ?? 0)
        for hint in hints {
            let direction = hint.isInput && hint.isOutput ? "in/out" : hint.isInput ? "in" : "out"
            let text = hint.description.split(separator: "\n").joined(separator: " - ")
            let padded = hint.name + String(repeating: " ", count: max(0, width - hint.name.count))
            lines.append("  \(padded)  \(direction.padding(6))  \(text)")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

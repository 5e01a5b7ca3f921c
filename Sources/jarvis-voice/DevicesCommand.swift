import ALSA
import ArgumentParser
import GPIO

/// `jarvis-voice devices`: what the configuration's `capture_device` / `playback_device` can name.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List ALSA PCMs (audio.capture_device / audio.playback_device) and GPIO chips and lines ([button], [led])."
    )

    func run() throws {
        let hints = try DeviceHint.pcms()
        print(Self.render(hints))
        print()
        print(Self.renderGPIO())
    }

    static func renderGPIO() -> String {
        var lines = ["GPIO chips (\(GPIOChipInfo.libraryDescription)):"]
        do {
            let chips = try GPIOChipInfo.list()
            if chips.isEmpty { lines.append("  (none: no /dev/gpiochip*; set button.enabled = false to run without a button)") }
            for chip in chips {
                switch chip {
                case .success(let info): lines.append(contentsOf: info.description.split(separator: "\n").map { "  \($0)" })
                case .failure(let error): lines.append("  \(error)")
                }
            }
        } catch {
            lines.append("  \(error)")
        }
        return lines.joined(separator: "\n")
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

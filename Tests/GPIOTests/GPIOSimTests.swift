import Glibc
import Testing

@testable import GPIO

/// Real kernel GPIO through gpio-sim, run inside the QEMU VM by scripts/gpio-sim-vm-test; skipped
/// unless JARVIS_GPIO_SIM_CHIP is set. The guest script waits for the ready file, then "presses"
/// line 0 by writing pull-up/pull-down to gpio-sim's sysfs: a 0.1 s press, then a 2.5 s press.
private let simChip = getenv("JARVIS_GPIO_SIM_CHIP").map { String(cString: $0) }

private func env(_ name: String) -> String {
    getenv(name).map { String(cString: $0) } ?? ""
}

private func readSmallFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let n = read(fd, &buffer, buffer.count)
    return String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self)
}

@Suite(.enabled(if: simChip != nil, "set JARVIS_GPIO_SIM_CHIP (scripts/gpio-sim-vm-test)"), .serialized)
struct GPIOSimTests {
    @Test func chipListingShowsTheSimulatedChip() throws {
        let chips = try GPIOChipInfo.list()
        let info = try #require(try chips.first?.get())
        print("gpio-sim chip: \(info)")
        #expect(info.path == simChip)
        #expect(info.lineCount == 4)
        #expect(info.lines[0].name == "button")
    }

    @Test func buttonEdgesBecomeGesturesAndTheLEDLineFollows() async throws {
        let chip = try #require(simChip)
        let source = try ButtonGestureSource(
            line: ButtonLineSettings(chip: chip, line: 0, activeLow: false, bias: .asIs, debounce: .milliseconds(5)),
            gestures: GestureRecognizer.Settings(debounce: .milliseconds(5), hold: .milliseconds(1000), longHold: .milliseconds(6000)),
            consumer: "jarvis-test")
        #expect(try source.input?.value() == false)
        let listed = try GPIOChipInfo.read(path: chip).lines[0]
        #expect(listed.isUsed && listed.consumer == "jarvis-test")

        let led = try GPIOOutputLine(chip: chip, line: 1, activeLow: false, consumer: "jarvis-led")
        try led.set(true)
        #expect(readSmallFile(env("JARVIS_GPIO_SIM_SYSFS") + "/sim_gpio1/value").hasPrefix("1"))
        try led.set(false)
        #expect(readSmallFile(env("JARVIS_GPIO_SIM_SYSFS") + "/sim_gpio1/value").hasPrefix("0"))

        let ready = open(env("JARVIS_GPIO_SIM_READY"), O_CREAT | O_WRONLY, 0o644)
        if ready >= 0 { close(ready) }
        var seen: [ButtonGesture] = []
        for try await g in source.gestures {
            print("gpio-sim gesture: \(g)")
            seen.append(g)
            if seen.count == 3 { break }
        }
        source.stop()
        #expect(seen.count == 3)
        #expect(seen.first == .tap)
        #expect(seen.dropFirst().first == .holdBegan)
        if case .holdEnded(let d) = seen.last {
            #expect(d >= .seconds(2) && d < .seconds(5))
        } else {
            Issue.record("expected holdEnded last, got \(seen)")
        }
    }
}

import Glibc
import TestProcess
import Testing

@testable import GPIO

private let noGPIOChip0 = access("/dev/gpiochip0", F_OK) != 0

private func touch(_ path: String) {
    let fd = open(path, O_CREAT | O_WRONLY, 0o644)
    if fd >= 0 { close(fd) }
}

@Suite struct GPIODeviceErrorTests {
    @Test(.enabled(if: noGPIOChip0, "this machine has a /dev/gpiochip0"))
    func missingChipGivesAClearTypedError() {
        #expect {
            _ = try GPIOInputLine(ButtonLineSettings())
        } throws: { error in
            guard let e = error as? GPIOError else { return false }
            #expect(e.operation == .openInput)
            #expect(e.call == "gpiod_chip_open")
            #expect(e.chip == "/dev/gpiochip0")
            #expect(e.line == 17)
            #expect(e.errno == ENOENT)
            #expect(
                e.description == "cannot open /dev/gpiochip0 line 17: No such file or directory "
                    + "(no such GPIO chip; `jarvis-voice devices` lists them) [gpiod_chip_open]")
            return true
        }
    }

    @Test func buttonSourceAndLEDFailToOpenAMissingChip() {
        let chip = "/tmp/no-such-dir-\(getpid())/gpiochip9"
        #expect(throws: GPIOError(.openInput, call: "gpiod_chip_open", chip: chip, line: 4, errno: ENOENT)) {
            _ = try ButtonGestureSource(line: ButtonLineSettings(chip: chip, line: 4))
        }
        #expect(throws: GPIOError(.openOutput, call: "gpiod_chip_open", chip: chip, line: 5, errno: ENOENT)) {
            _ = try LEDDriver.open(LEDLineSettings(chip: chip, line: 5))
        }
    }

    @Test func aSourceWithoutALineOpensNothing() throws {
        let source = try ButtonGestureSource(input: nil)
        #expect(source.input == nil)
        source.stop()
    }

    @Test func aFileThatIsNotAGPIOChipIsRejected() {
        #expect {
            _ = try GPIOInputLine(chip: "/dev/null", line: 0, activeLow: false, bias: .asIs, debounce: .zero)
        } throws: { error in
            guard let e = error as? GPIOError else { return false }
            #expect(e.call == "gpiod_chip_open")
            #expect(e.errno == ENOTTY || e.errno == ENODEV)
            #expect(e.description.hasPrefix("cannot open /dev/null line 0: "))
            #expect(e.description.contains("(not a GPIO character device) [gpiod_chip_open]"))
            return true
        }
    }

    @Test func negativeLineOffsetIsRefusedBeforeCallingLibgpiod() {
        #expect(throws: GPIOError(.openInput, call: "gpiod_chip_get_line", chip: "/dev/gpiochip0", line: -1, errno: EINVAL)) {
            _ = try GPIOInputLine(chip: "/dev/gpiochip0", line: -1, activeLow: true, bias: .pullUp, debounce: .zero)
        }
    }

    @Test func hintsForTheUsualCauses() {
        let denied = GPIOError(.openInput, call: "gpiod_chip_open", chip: "/dev/gpiochip0", line: 17, errno: EACCES)
        #expect(
            denied.description
                == "cannot open /dev/gpiochip0 line 17: Permission denied (is the user in the gpio group?) [gpiod_chip_open]")
        let busy = GPIOError(.openInput, call: "gpiod_line_request", chip: "/dev/gpiochip0", line: 17, errno: EBUSY)
        #expect(busy.description.contains("Device or resource busy (the line is in use by another program"))
        let set = GPIOError(.setValue, call: "gpiod_line_set_value", chip: "/dev/gpiochip0", line: 27, errno: EIO)
        #expect(set.description == "cannot set /dev/gpiochip0 line 27: Input/output error [gpiod_line_set_value]")
    }

    @Test func chipListingReadsEachGPIOChipNodeInNumericOrder() throws {
        let temporary = TemporaryDirectory(prefix: "gpio-tests")
        let dir = temporary.path
        for name in ["gpiochip10", "gpiochip2", "mixer0"] { touch("\(dir)/\(name)") }
        let results = try GPIOChipInfo.list(directory: dir)
        #expect(results.count == 2)
        let errors = results.compactMap { r -> GPIOError? in if case .failure(let e) = r { e } else { nil } }
        #expect(errors.map(\.chip) == ["\(dir)/gpiochip2", "\(dir)/gpiochip10"])
        #expect(errors.allSatisfy { $0.operation == .openChip && $0.call == "gpiod_chip_open" })
        #expect(errors.first?.description.hasPrefix("cannot read GPIO chip \(dir)/gpiochip2: ") == true)
    }

    @Test func listingAMissingDirectoryThrowsAndDevListsWhatExists() throws {
        #expect(throws: GPIOError(.listChips, call: "opendir", chip: "/nonexistent-gpio", errno: ENOENT)) {
            _ = try GPIOChipInfo.list(directory: "/nonexistent-gpio")
        }
        let dev = try GPIOChipInfo.list()
        var present = 0
        for n in 0..<64 where access("/dev/gpiochip\(n)", F_OK) == 0 { present += 1 }
        #expect(dev.count == present)
    }

    @Test func libraryDescriptionNamesTheBackend() {
        let text = GPIOChipInfo.libraryDescription
        #expect(text.hasPrefix("libgpiod "))
        #expect(text.contains("(1.x API") || text.contains("(2.x API"))
    }

    @Test func chipDescriptionLooksLikeGpioinfo() {
        let chip = GPIOChipInfo(
            path: "/dev/gpiochip0", name: "gpiochip0", label: "gpio-sim.0-node0",
            lines: [
                GPIOLineInfo(offset: 0, name: "button", consumer: "jarvis-voice", isUsed: true, isOutput: false, isActiveLow: true),
                GPIOLineInfo(offset: 1, name: nil, consumer: nil, isUsed: false, isOutput: true, isActiveLow: false)
            ])
        #expect(
            chip.description == """
                /dev/gpiochip0 [gpio-sim.0-node0] (2 lines)
                  line 0: "button" "jarvis-voice" input active-low
                  line 1: unnamed unused output
                """)
    }
}

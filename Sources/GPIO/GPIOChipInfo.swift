/// One line of a GPIO chip, as `gpioinfo` shows it.
public struct GPIOLineInfo: Sendable, Equatable {
    public var offset: Int
    public var name: String?
    /// Who requested the line, if anyone named themselves.
    public var consumer: String?
    public var isUsed: Bool
    public var isOutput: Bool
    public var isActiveLow: Bool

    public init(offset: Int, name: String?, consumer: String?, isUsed: Bool, isOutput: Bool, isActiveLow: Bool) {
        self.offset = offset
        self.name = name
        self.consumer = consumer
        self.isUsed = isUsed
        self.isOutput = isOutput
        self.isActiveLow = isActiveLow
    }
}

/// A GPIO chip and its lines, for `jarvis-voice devices` and `doctor`.
public struct GPIOChipInfo: Sendable, Equatable, CustomStringConvertible {
    /// Device path, e.g. `/dev/gpiochip0`.
    public var path: String
    /// Kernel name, e.g. `gpiochip0`.
    public var name: String
    /// Driver label, e.g. `pinctrl-bcm2711` (Pi 4) or `pinctrl-rp1` (Pi 5).
    public var label: String
    public var lines: [GPIOLineInfo]

    public var lineCount: Int { lines.count }

    public init(path: String, name: String, label: String, lines: [GPIOLineInfo]) {
        self.path = path
        self.name = name
        self.label = label
        self.lines = lines
    }

    /// Reads one chip.
    public static func read(path: String) throws(GPIOError) -> GPIOChipInfo {
        try GPIOCalls.readChip(path: path)
    }

    /// Every `gpiochipN` in `directory`, in numeric order; each one read or the reason it could not
    /// be. Empty when the machine has no GPIO. Throws only when the directory cannot be read.
    public static func list(directory: String = "/dev") throws(GPIOError) -> [Result<GPIOChipInfo, GPIOError>] {
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return try GPIOCalls.chipNames(in: directory)
            .sorted { chipNumber($0) < chipNumber($1) || (chipNumber($0) == chipNumber($1) && $0 < $1) }
            .map { name in
                do throws(GPIOError) { return .success(try read(path: "\(base)/\(name)")) } catch { return .failure(error) }
            }
    }

    /// The libgpiod the binary was built against, e.g. "libgpiod 1.6.3 (1.x API)".
    public static var libraryDescription: String {
        "libgpiod \(GPIOCalls.libraryVersion) (\(GPIOCalls.backend).x API\(GPIOCalls.kernelDebounceSupported ? ", kernel debounce" : ""))"
    }

    /// `gpioinfo`-style text: a header line, then one line per GPIO line.
    public var description: String {
        var text = "\(path) [\(label)] (\(lineCount) lines)"
        for line in lines {
            let name = line.name.map { "\"\($0)\"" } ?? "unnamed"
            let consumer = line.consumer.map { "\"\($0)\"" } ?? (line.isUsed ? "kernel" : "unused")
            text +=
                "\n  line \(line.offset): \(name) \(consumer) \(line.isOutput ? "output" : "input")"
                + (line.isActiveLow ? " active-low" : "")
        }
        return text
    }

    private static func chipNumber(_ name: String) -> Int {
        Int(name.dropFirst("gpiochip".count)) ?? Int.max
    }
}

import Glibc

/// A failed GPIO operation: what we tried, on which chip and line, which C function failed and
/// why, with a hint for the usual causes.
public struct GPIOError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Operation: String, Sendable, Equatable {
        case openInput = "cannot open"
        case openOutput = "cannot open output"
        case openChip = "cannot read GPIO chip"
        case readEdges = "cannot read edge events from"
        case readValue = "cannot read the value of"
        case setValue = "cannot set"
        case lineInfo = "cannot read line info of"
        case listChips = "cannot list GPIO chips in"
        case eventThread = "cannot start the event thread for"
    }

    public var operation: Operation
    /// The C function that failed, e.g. `gpiod_chip_open`.
    public var call: String
    /// The chip's device path (or the directory for `listChips`).
    public var chip: String
    public var line: Int?
    public var errno: Int32

    public init(_ operation: Operation, call: String, chip: String, line: Int? = nil, errno: Int32) {
        self.operation = operation
        self.call = call
        self.chip = chip
        self.line = line
        self.errno = errno
    }

    public var description: String { "\(plainDescription) [\(call)]" }

    /// The owner's sentence: what failed, why, and the usual cause, without the C call (that is for
    /// a debug line: `description`).
    public var plainDescription: String {
        let target = line.map { "\(chip) line \($0)" } ?? chip
        let reason = String(cString: strerror(errno))
        let hint = self.hint.map { " (\($0))" } ?? ""
        return "\(operation.rawValue) \(target): \(reason)\(hint)"
    }

    /// What usually causes this errno here.
    public var hint: String? {
        switch errno {
        case EACCES, EPERM: "is the user in the gpio group?"
        case ENOENT where operation != .listChips: "no such GPIO chip; `jarvis-voice devices` lists them"
        case EBUSY: "the line is in use by another program; `jarvis-voice devices` shows its consumer"
        case EINVAL where line != nil: "is the line offset within the chip's lines?"
        case ENODEV, ENOTTY: "not a GPIO character device"
        default: nil
        }
    }
}

import Basics

/// One edge of an input line; `rising` means it became active (active-low already applied).
public struct GPIOEdge: Sendable, Equatable {
    public var rising: Bool
    public var timestamp: MonotonicInstant

    public init(rising: Bool, timestamp: MonotonicInstant) {
        self.rising = rising
        self.timestamp = timestamp
    }
}

/// A requested GPIO input line with both-edge events. Owns the request; released on deinit.
/// Read edges from one thread at a time (`ButtonGestureSource` does that for you).
public final class GPIOInputLine: @unchecked Sendable {
    public let chip: String
    public let line: Int
    /// True when the kernel debounces the line (libgpiod 2.x); software debounce applies anyway.
    public let kernelDebounced: Bool
    private let handle: GPIOHandle

    public init(
        chip: String, line: Int, activeLow: Bool, bias: GPIOLineBias, debounce: Duration,
        consumer: String = "jarvis-voice"
    ) throws(GPIOError) {
        self.chip = chip
        self.line = line
        let micros = UInt32(clamping: max(debounce.nanoseconds, 0) / 1000)
        self.handle = try GPIOCalls.openInput(
            chip: chip, line: line, activeLow: activeLow, bias: bias.cshimValue,
            debounceMicroseconds: micros, consumer: consumer)
        self.kernelDebounced = micros > 0 && GPIOCalls.kernelDebounceSupported
    }

    /// The button's line.
    public convenience init(_ settings: ButtonLineSettings, consumer: String = "jarvis-voice") throws(GPIOError) {
        try self.init(
            chip: settings.chip, line: settings.line, activeLow: settings.activeLow, bias: settings.bias,
            debounce: settings.debounce, consumer: consumer)
    }

    deinit {
        GPIOCalls.closeInput(handle)
    }

    /// Readable (POLLIN) when edges are queued.
    public var fileDescriptor: Int32 { GPIOCalls.inputFD(handle) }

    /// The queued edges; blocks until at least one arrives, so poll `fileDescriptor` first.
    public func readEdges() throws(GPIOError) -> [GPIOEdge] {
        try GPIOCalls.readEdges(handle, chip: chip, line: line)
    }

    /// The current logical level (true: active).
    public func value() throws(GPIOError) -> Bool {
        try GPIOCalls.inputValue(handle, chip: chip, line: line)
    }
}

extension GPIOLineBias {
    var cshimValue: Int32 {
        switch self {
        case .asIs: 0
        case .pullUp: 1
        case .pullDown: 2
        case .disabled: 3
        }
    }
}

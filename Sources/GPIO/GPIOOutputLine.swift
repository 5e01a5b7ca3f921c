import Synchronization

/// A requested GPIO output line (the status LED). Owns the request; released on deinit.
public final class GPIOOutputLine: Sendable {
    public let chip: String
    public let line: Int
    private let handle: Mutex<GPIOHandle>

    public init(
        chip: String, line: Int, activeLow: Bool, initiallyActive: Bool = false,
        consumer: String = "jarvis-voice"
    ) throws(GPIOError) {
        self.chip = chip
        self.line = line
        let h = try GPIOCalls.openOutput(chip: chip, line: line, activeLow: activeLow, initial: initiallyActive, consumer: consumer)
        self.handle = Mutex(h)
    }

    deinit {
        handle.withLock { GPIOCalls.closeOutput($0) }
    }

    /// Sets the logical level (true: active, i.e. the LED lights, whatever `activeLow` is).
    public func set(_ active: Bool) throws(GPIOError) {
        let chip = self.chip, line = self.line
        try handle.withLock { (h: inout GPIOHandle) throws(GPIOError) in
            try GPIOCalls.setOutput(h, active, chip: chip, line: line)
        }
    }
}

/// Line bias of a GPIO input.
public enum GPIOLineBias: Sendable, Equatable {
    case pullUp
    case pullDown
    case disabled
    case asIs
}

/// The talk button's input line.
public struct ButtonLineSettings: Sendable, Equatable {
    public var chip: String
    /// Line offset on the chip (BCM number on a Raspberry Pi).
    public var line: Int
    /// The button pulls the line low when pressed.
    public var activeLow: Bool
    public var bias: GPIOLineBias
    /// Asked of the kernel where it debounces (libgpiod 2.x); the recognizer debounces anyway.
    public var debounce: Duration

    public init(
        chip: String = "/dev/gpiochip0", line: Int = 17, activeLow: Bool = true,
        bias: GPIOLineBias = .pullUp, debounce: Duration = .milliseconds(20)
    ) {
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
        self.bias = bias
        self.debounce = debounce
    }
}

/// The status LED's output line.
public struct LEDLineSettings: Sendable, Equatable {
    public var chip: String
    public var line: Int
    /// The LED lights when the line is driven low.
    public var activeLow: Bool

    public init(chip: String = "/dev/gpiochip0", line: Int, activeLow: Bool = false) {
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
    }
}

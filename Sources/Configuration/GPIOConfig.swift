/// Line bias of a GPIO input.
public enum GPIOBias: String, Sendable, CaseIterable {
    case pullUp = "pull-up"
    case pullDown = "pull-down"
    case disabled
    case asIs = "as-is"
}

/// `[button]`: the talk button on a GPIO line (libgpiod).
public struct ButtonConfig: Sendable, Equatable {
    /// false: no GPIO at all (control socket only).
    public var enabled: Bool
    public var chip: String
    /// Line offset on the chip (BCM number on a Raspberry Pi).
    public var line: Int
    /// The button pulls the line low when pressed.
    public var activeLow: Bool
    public var bias: GPIOBias
    public var debounceMs: Int
    /// Pressed at least this long: push-to-talk instead of a tap.
    public var holdMs: Int
    /// Pressed at least this long: forget the Jarvis session.
    public var longHoldMs: Int

    public init(
        enabled: Bool = true,
        chip: String = "/dev/gpiochip0",
        line: Int = 17,
        activeLow: Bool = true,
        bias: GPIOBias = .pullUp,
        debounceMs: Int = 20,
        holdMs: Int = 400,
        longHoldMs: Int = 3000
    ) {
        self.enabled = enabled
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
        self.bias = bias
        self.debounceMs = debounceMs
        self.holdMs = holdMs
        self.longHoldMs = longHoldMs
    }
}

/// `[led]`: an optional status LED on a GPIO line.
public struct LEDConfig: Sendable, Equatable {
    public var enabled: Bool
    public var chip: String
    /// Line offset; required when `enabled`.
    public var line: Int?
    /// The LED lights when the line is driven low.
    public var activeLow: Bool

    public init(enabled: Bool = false, chip: String = "/dev/gpiochip0", line: Int? = nil, activeLow: Bool = false) {
        self.enabled = enabled
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
    }
}

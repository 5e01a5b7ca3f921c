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
    public var enabled: Bool = true
    public var chip: String = "/dev/gpiochip0"
    /// Line offset on the chip (BCM number on a Raspberry Pi).
    public var line: Int = 17
    /// The button pulls the line low when pressed.
    public var activeLow: Bool = true
    public var bias: GPIOBias = .pullUp
    public var debounceMs: Int = 20
    /// Pressed at least this long: push-to-talk instead of a tap.
    public var holdMs: Int = 400
    /// Pressed at least this long: forget the Jarvis session.
    public var longHoldMs: Int = 3000
    /// A second tap within this long of the first is a double tap: it turns the microphone mute on or off.
    public var doubleTapMs: Int = 400

    public init() {}
}

/// `[led]`: an optional status LED on a GPIO line.
public struct LEDConfig: Sendable, Equatable {
    public var enabled: Bool = false
    public var chip: String = "/dev/gpiochip0"
    /// Line offset; required when `enabled`.
    public var line: Int? = nil
    /// The LED lights when the line is driven low.
    public var activeLow: Bool = false

    public init() {}
}

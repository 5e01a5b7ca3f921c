import Basics

/// What the service tells systemd, decided from plain observations (so a test drives it with a
/// manual clock):
/// - `STATUS=` names the audio devices the service is waiting for while a device loop has no
///   device open ("waiting for capture device plughw:respeaker…"), else the engine's state;
/// - `WATCHDOG=1` goes out on every tick while the service's own loops are alive: the audio
///   service's loop ticks, and every device loop that *has* its device open completes periods. A
///   device that is absent is waited for, not a reason to be restarted; a loop that hangs is.
///
/// READY=1 is not decided here: the caller sends it once the service is set up and serving.
public struct ServiceHealth: Sendable {
    /// One realtime device loop as observed at a tick.
    public struct DeviceLoop: Sendable, Equatable {
        /// "capture device plughw:respeaker"
        public var name: String
        /// The device is open (periods should flow).
        public var isOpen: Bool
        /// CLOCK_MONOTONIC ns at the end of its last completed period (0 before the first).
        public var lastPeriodNanoseconds: Int64

        public init(name: String, isOpen: Bool, lastPeriodNanoseconds: Int64) {
            self.name = name
            self.isOpen = isOpen
            self.lastPeriodNanoseconds = lastPeriodNanoseconds
        }
    }

    public struct Observation: Sendable, Equatable {
        public var now: Int64
        public var devices: [DeviceLoop]
        /// CLOCK_MONOTONIC ns of the audio service loop's last tick (0: it has not ticked yet).
        public var serviceLoopTick: Int64

        public init(now: Int64, devices: [DeviceLoop], serviceLoopTick: Int64) {
            self.now = now
            self.devices = devices
            self.serviceLoopTick = serviceLoopTick
        }
    }

    public enum Effect: Sendable, Equatable {
        case status(String)
        case watchdog
        case notice(String)
        case error(String)
    }

    /// An open device with no completed period for this long is hung.
    public let stuckAfter: Duration
    /// The audio service loop (it ticks every 100 ms) not ticking for this long is hung.
    public let serviceLoopStaleAfter: Duration

    private var engineState = "idle"
    private var lastStatus: String?
    private var waitingFor: [String] = []
    private var hung: String?
    /// When each device was first seen open in its current open period (so the period gap of an
    /// unplug is not counted against a device that has just reopened).
    private var openSince: [String: Int64] = [:]
    /// The first tick's time: a service loop that never ticked counts as stale from here.
    private var firstTick: Int64?

    public init(stuckAfter: Duration = .seconds(2), serviceLoopStaleAfter: Duration = .seconds(5)) {
        self.stuckAfter = stuckAfter
        self.serviceLoopStaleAfter = serviceLoopStaleAfter
    }

    /// The status line as of the last tick.
    public var status: String {
        waitingFor.isEmpty ? engineState : "waiting for " + waitingFor.joined(separator: " and ") + "…"
    }

    /// The engine reported a new state ("idle", "listening", …).
    public mutating func engineStateChanged(_ state: String) -> [Effect] {
        engineState = state
        return statusEffect()
    }

    public mutating func tick(_ observation: Observation) -> [Effect] {
        var effects: [Effect] = []
        let now = observation.now
        var waiting: [String] = []
        var stuck: String?
        for device in observation.devices {
            guard device.isOpen else {
                openSince[device.name] = nil
                waiting.append(device.name)
                continue
            }
            let since = openSince[device.name] ?? now
            openSince[device.name] = since
            let lastSign = max(device.lastPeriodNanoseconds, since)
            if stuck == nil, now - lastSign >= stuckAfter.nanoseconds {
                stuck = "\(device.name) is open but completed no period for \(Self.text(now - lastSign))"
            }
        }
        let start = firstTick ?? now
        firstTick = start
        let serviceSign = max(observation.serviceLoopTick, start)
        if stuck == nil, now - serviceSign >= serviceLoopStaleAfter.nanoseconds {
            stuck = "the audio service loop has not run for \(Self.text(now - serviceSign))"
        }

        if waiting != waitingFor {
            if waiting.isEmpty {
                effects.append(.notice("audio running: \(observation.devices.map(\.name).joined(separator: " and ")) open"))
            } else {
                effects.append(
                    .notice("waiting for \(waiting.joined(separator: " and ")) (the service keeps running and picks it up when it appears)"))
            }
            waitingFor = waiting
        }
        effects += statusEffect()

        switch (hung, stuck) {
        case (nil, let reason?):
            effects.append(.error("\(reason); withholding watchdog pings so systemd restarts the service"))
        case (_?, nil):
            effects.append(.notice("service loops are alive again; watchdog pings resumed"))
        default:
            break
        }
        hung = stuck
        if stuck == nil { effects.append(.watchdog) }
        return effects
    }

    private mutating func statusEffect() -> [Effect] {
        let text = status
        guard text != lastStatus else { return [] }
        lastStatus = text
        return [.status(text)]
    }

    private static func text(_ nanoseconds: Int64) -> String {
        let tenths = nanoseconds / 100_000_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}

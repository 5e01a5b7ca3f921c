/// sd_notify(3) without libsystemd: one datagram per call to `$NOTIFY_SOCKET` (a path or an
/// abstract `@name`). Without `$NOTIFY_SOCKET` (not started by systemd) every call is a no-op.
public struct SDNotify: Sendable {
    /// The notify socket address, or nil when not running under `Type=notify`.
    public let socketAddress: String?
    /// Full watchdog timeout (`WatchdogSec=`) if the watchdog applies to this process; ping at half.
    public let watchdogTimeout: Duration?

    /// `environment` defaults to the process environment.
    public init(environment: [String: String]? = nil) {
        let environment = environment ?? SystemdCalls.environment()
        let address = environment["NOTIFY_SOCKET"] ?? ""
        socketAddress = address.isEmpty ? nil : address
        watchdogTimeout = Self.watchdogTimeout(environment: environment, pid: SystemdCalls.processID())
    }

    public var isEnabled: Bool { socketAddress != nil }

    /// How often to send `WATCHDOG=1`: half the timeout, as sd_watchdog_enabled(3) advises.
    public var watchdogPingInterval: Duration? { watchdogTimeout.map { $0 / 2 } }

    /// `$WATCHDOG_USEC` if set and positive and `$WATCHDOG_PID` (if set) is `pid`.
    public static func watchdogTimeout(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0,
            usec <= UInt64(Int64.max)
        else { return nil }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty {
            guard Int32(owner) == pid else { return nil }
        }
        return .microseconds(Int64(usec))
    }

    /// Sends raw `KEY=VALUE` lines (newline-separated). Returns false when there is no socket.
    @discardableResult
    public func send(_ message: String) throws(SystemdError) -> Bool {
        guard let socketAddress else { return false }
        try SystemdCalls.sendDatagram(message, to: socketAddress)
        return true
    }

    /// `READY=1`, optionally with a `STATUS=` line.
    @discardableResult
    public func ready(status: String? = nil) throws(SystemdError) -> Bool {
        try send(["READY=1", status.map { "STATUS=" + Self.singleLine($0) }].compactMap { $0 }.joined(separator: "\n"))
    }

    /// `STATUS=...`, shown by `systemctl status`.
    @discardableResult
    public func status(_ text: String) throws(SystemdError) -> Bool {
        try send("STATUS=" + Self.singleLine(text))
    }

    @discardableResult
    public func watchdog() throws(SystemdError) -> Bool {
        try send("WATCHDOG=1")
    }

    @discardableResult
    public func stopping() throws(SystemdError) -> Bool {
        try send("STOPPING=1")
    }

    /// `RELOADING=1` with `MONOTONIC_USEC=` (required by `Type=notify-reload`); send `ready()` when done.
    @discardableResult
    public func reloading(monotonicMicroseconds: UInt64? = nil) throws(SystemdError) -> Bool {
        let now = monotonicMicroseconds ?? SystemdCalls.monotonicMicroseconds()
        return try send("RELOADING=1\nMONOTONIC_USEC=\(now)")
    }

    /// Sends `WATCHDOG=1` every `watchdogPingInterval` until the task is cancelled; returns at once
    /// when the watchdog is not enabled for this process. `onError` sees failed sends (log them;
    /// systemd restarts the service if pings stop).
    public func keepWatchdogAlive(onError: (SystemdError) -> Void = { _ in }) async {
        guard isEnabled, let interval = watchdogPingInterval else { return }
        while !Task.isCancelled {
            do {
                try watchdog()
            } catch {
                onError(error)
            }
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
        }
    }

    /// Newlines would start a new assignment; status text must stay one line.
    static func singleLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}

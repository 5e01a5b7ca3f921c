/// The connection lifecycle of the Realtime session as a pure state machine: when to connect, how long to
/// back off, when to recycle before the 60-minute cap, when to give up. The session service executes the
/// returned actions; tests drive it with hand-made instants.
public struct RealtimeLifecycle<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration, Instant: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var policy: ReconnectPolicy
        /// Recycle at the first idle moment after this much connected time. Default 55 min (the cap is 60).
        public var recycleAfter: Duration
        /// A connection that lasted this long counts as a success and resets the backoff. Default 10 s.
        public var stableAfter: Duration

        public init(policy: ReconnectPolicy = .init(), recycleAfter: Duration = .seconds(55 * 60), stableAfter: Duration = .seconds(10)) {
            self.policy = policy
            self.recycleAfter = recycleAfter
            self.stableAfter = stableAfter
        }
    }

    public enum State: Sendable, Equatable {
        case idle
        case connecting
        case connected(since: Instant)
        case recycling
        case waiting(until: Instant)
        case finished
        case stopped(RealtimeDisconnect)
    }

    public enum Action: Sendable, Equatable {
        case connect
        case wait(until: Instant)
        /// Close the socket now (code 1000) and connect again at once.
        case recycle
        /// The owner closed the session; do nothing more.
        case finish
        /// Fatal: do not retry; tell the user why.
        case stop(RealtimeDisconnect)
        case none
    }

    public let configuration: Configuration
    public private(set) var state: State = .idle
    /// Consecutive failed or short-lived connections.
    public private(set) var failures = 0
    public private(set) var connectionCount = 0

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    public mutating func start() -> Action {
        guard case .idle = state else { return .none }
        state = .connecting
        return .connect
    }

    public mutating func connected(at now: Instant) -> Action {
        state = .connected(since: now)
        connectionCount += 1
        return .none
    }

    /// The engine reports an idle moment (no turn, no response, nothing playing).
    public mutating func idle(at now: Instant) -> Action {
        guard case .connected(let since) = state, since.duration(to: now) >= configuration.recycleAfter else { return .none }
        state = .recycling
        return .recycle
    }

    /// The connection ended or the attempt failed. `unitRandom` in 0..<1 feeds the jitter.
    public mutating func ended(_ disconnect: RealtimeDisconnect, at now: Instant, unitRandom: Double) -> Action {
        let wasRecycling = state == .recycling
        if case .connected(let since) = state, since.duration(to: now) >= configuration.stableAfter { failures = 0 }
        switch disconnect.kind {
        case .fatal:
            state = .stopped(disconnect)
            return .stop(disconnect)
        case .closedByClient:
            if wasRecycling {
                failures = 0
                state = .connecting
                return .connect
            }
            state = .finished
            return .finish
        case .transient:
            failures += 1
            if let limit = configuration.policy.maximumAttempts, failures > limit {
                let gaveUp = RealtimeDisconnect(kind: .fatal, reason: .gaveUp(attempts: failures - 1))
                state = .stopped(gaveUp)
                return .stop(gaveUp)
            }
            let until = now.advanced(by: configuration.policy.delay(attempt: failures, unitRandom: unitRandom))
            state = .waiting(until: until)
            return .wait(until: until)
        }
    }

    /// The backoff wait is over (the owner slept until `until`).
    public mutating func waitElapsed(at now: Instant) -> Action {
        guard case .waiting(let until) = state else { return .none }
        if now < until { return .wait(until: until) }
        state = .connecting
        return .connect
    }

    /// The owner shuts the session down.
    public mutating func shutdown() -> Action {
        switch state {
        case .stopped, .finished: return .none
        default:
            state = .finished
            return .finish
        }
    }
}

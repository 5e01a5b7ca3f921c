import Basics
import Glibc
import Media
import Synchronization

/// The owner's timers and alarms: set, listed and cancelled from any task (tools, the control socket),
/// kept in `state_dir/timers.json` so a restart or a reboot goes on with them, and handed out once due
/// (`takeDue`). Duration timers run on the monotonic clock, alarms on the wall clock (`KitchenTimer.Kind`).
public final class KitchenTimers: Sendable {
    public static let fileName = "timers.json"
    static let maxFileBytes = 64 << 10
    /// Timers and alarms at once, at most (a kitchen, not a scheduler).
    public static let maximumCount = 20

    /// The two clocks, injected so tests can step them.
    public struct Clocks: Sendable {
        public var monotonic: @Sendable () -> EngineTime
        public var wallEpochMilliseconds: @Sendable () -> Int64

        public init(monotonic: @escaping @Sendable () -> EngineTime, wallEpochMilliseconds: @escaping @Sendable () -> Int64) {
            self.monotonic = monotonic
            self.wallEpochMilliseconds = wallEpochMilliseconds
        }

        public static func system(monotonic: @escaping @Sendable () -> EngineTime) -> Clocks {
            Clocks(monotonic: monotonic) {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
            }
        }
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case tooMany
        case notFound(String)
        case invalidTime(String)

        public var description: String {
            switch self {
            case .tooMany: "there are already \(KitchenTimers.maximumCount) timers"
            case .notFound(let what): "there is no timer or alarm \"\(what)\""
            case .invalidTime(let text): "\"\(text)\" is not a time of day like 07:00 or 18:30"
            }
        }
    }

    private struct State {
        var timers: [KitchenTimer] = []
        var nextID = 1
    }

    private let clocks: Clocks
    private let files: MediaStateFiles
    private let state: Mutex<State>
    private let changed: AsyncStream<Void>.Continuation
    /// Yields whenever a timer is added or removed (the scheduler sleeps on it with nothing to wait for).
    public let changes: AsyncStream<Void>
    private let problem: @Sendable (String) -> Void

    /// Reads the saved timers; a duration timer's monotonic end is taken from its saved wall-clock end.
    /// `problem` receives one plain sentence for an unusable file or a failed save.
    public init(stateDirectory: String, clocks: Clocks, problem: @escaping @Sendable (String) -> Void = { _ in }) {
        self.clocks = clocks
        self.problem = problem
        files = MediaStateFiles(directory: stateDirectory)
        (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var loaded = State()
        do throws(MediaStateFiles.Failure) {
            if let bytes = try files.read(Self.fileName, limit: Self.maxFileBytes + 1) {
                if bytes.count <= Self.maxFileBytes, let saved = Self.decode(String(decoding: bytes, as: UTF8.self)) {
                    loaded = saved
                } else {
                    problem("\(files.path(Self.fileName)) is not a timers file; starting with no timers")
                }
            }
        } catch {
            problem("cannot read the saved timers: \(error); starting with no timers")
        }
        let (monotonic, wall) = (clocks.monotonic(), clocks.wallEpochMilliseconds())
        for index in loaded.timers.indices where loaded.timers[index].kind == .duration {
            let left = loaded.timers[index].dueEpochMilliseconds - wall
            loaded.timers[index].dueMonotonic = EngineTime(milliseconds: monotonic.milliseconds + left)
        }
        state = Mutex(loaded)
    }

    /// A duration timer of `seconds` (1 s to a day).
    public func add(seconds: Int, label: String?) throws(Failure) -> KitchenTimer {
        let (monotonic, wall) = (clocks.monotonic(), clocks.wallEpochMilliseconds())
        return try insert { id in
            KitchenTimer(
                id: id, label: label, kind: .duration, dueEpochMilliseconds: wall + Int64(seconds) * 1000,
                dueMonotonic: EngineTime(milliseconds: monotonic.milliseconds + Int64(seconds) * 1000))
        }
    }

    /// An alarm at the next `hh:mm` of the local day (today if still ahead, else tomorrow), in this
    /// machine's time zone, daylight saving included.
    public func addAlarm(at time: String, label: String?) throws(Failure) -> KitchenTimer {
        guard let (hour, minute) = Self.timeOfDay(time) else { throw .invalidTime(time) }
        let due = Self.nextOccurrence(hour: hour, minute: minute, afterEpochMilliseconds: clocks.wallEpochMilliseconds())
        return try insert { id in KitchenTimer(id: id, label: label, kind: .alarm, dueEpochMilliseconds: due) }
    }

    /// Cancels by id or label (every timer with that label); returns what was cancelled.
    public func cancel(_ idOrLabel: String) throws(Failure) -> [KitchenTimer] {
        let key = idOrLabel.trimmed()
        let removed = state.withLock { state -> [KitchenTimer] in
            let matches = state.timers.filter { $0.id == key || $0.label?.lowercased() == key.lowercased() }
            state.timers.removeAll { timer in matches.contains { $0.id == timer.id } }
            return matches
        }
        guard !removed.isEmpty else { throw .notFound(key) }
        saved()
        return removed
    }

    /// The timers still running, soonest first, with whole seconds left.
    public func list() -> [(timer: KitchenTimer, secondsLeft: Int)] {
        let (monotonic, wall) = (clocks.monotonic(), clocks.wallEpochMilliseconds())
        return state.withLock { $0.timers }
            .map { ($0, Int(($0.remainingMilliseconds(monotonic: monotonic, wallEpochMilliseconds: wall) + 999) / 1000)) }
            .sorted { $0.1 < $1.1 }
    }

    /// Removes and returns the timers due within `lead` (the time the sound takes to reach the speaker),
    /// with how late each is (0 unless it fell due more than a second ago, i.e. while nothing could ring it).
    public func takeDue(lead: Duration = .zero) -> [TimerRing] {
        let monotonic = clocks.monotonic() + lead
        let wall = clocks.wallEpochMilliseconds() + lead.wholeMilliseconds
        let due = state.withLock { state -> [TimerRing] in
            let due = state.timers.compactMap { timer -> TimerRing? in
                let left = timer.remainingMilliseconds(monotonic: monotonic, wallEpochMilliseconds: wall)
                guard left <= 0 else { return nil }
                return TimerRing(timer: timer, lateSeconds: left < -1_000 ? Int(-left / 1000) : 0)
            }
            state.timers.removeAll { timer in due.contains { $0.timer.id == timer.id } }
            return due
        }
        if !due.isEmpty { saved() }
        return due
    }

    /// How long until the next timer is due: exact for duration timers; alarms are looked at again at
    /// least once a second, so a step of the wall clock moves them at once. nil with no timers.
    public func nextWake(lead: Duration = .zero) -> Duration? {
        let monotonic = clocks.monotonic() + lead
        let wall = clocks.wallEpochMilliseconds() + lead.wholeMilliseconds
        let waits = state.withLock { $0.timers }.map { timer -> Int64 in
            let left = max(0, timer.remainingMilliseconds(monotonic: monotonic, wallEpochMilliseconds: wall))
            return timer.kind == .alarm ? min(left, 1_000) : left
        }
        return waits.min().map { .milliseconds($0) }
    }

    private func insert(_ make: (String) -> KitchenTimer) throws(Failure) -> KitchenTimer {
        let timer = state.withLock { state -> KitchenTimer? in
            guard state.timers.count < Self.maximumCount else { return nil }
            let timer = make("\(state.nextID)")
            state.nextID += 1
            state.timers.append(timer)
            return timer
        }
        guard let timer else { throw .tooMany }
        saved()
        return timer
    }

    /// Saves the timers (durations with their wall-clock end as of now) and wakes the scheduler.
    private func saved() {
        changed.yield()
        let wall = clocks.wallEpochMilliseconds()
        let monotonic = clocks.monotonic()
        let text = state.withLock { state -> String in
            let timers = state.timers.map { timer -> JSONValue in
                var fields: [String: JSONValue] = [
                    "id": .string(timer.id), "kind": .string(timer.kind.rawValue),
                    "due_epoch_ms": .number(
                        Double(
                            timer.kind == .duration
                                ? wall + timer.remainingMilliseconds(monotonic: monotonic, wallEpochMilliseconds: wall)
                                : timer.dueEpochMilliseconds))
                ]
                if let label = timer.label { fields["label"] = .string(label) }
                return .object(fields)
            }
            return JSONValue.object(["timers": .array(timers), "next_id": .number(Double(state.nextID))]).jsonText
        }
        do throws(MediaStateFiles.Failure) {
            try files.prepare()
            try files.replace(Self.fileName, with: Array(text.utf8))
        } catch {
            problem("cannot save the timers, they will not survive a restart: \(error)")
        }
    }

    private static func decode(_ text: String) -> State? {
        guard let json = JSONValue.parse(text), case .array(let items)? = json["timers"] else { return nil }
        var state = State()
        for item in items.prefix(maximumCount) {
            guard let id = item["id"]?.stringValue,
                let kind = item["kind"]?.stringValue.flatMap(KitchenTimer.Kind.init(rawValue:)),
                let due = item["due_epoch_ms"]?.numberValue, due.isFinite, abs(due) < 1e15
            else { return nil }
            let label = item["label"]?.stringValue
            state.timers.append(KitchenTimer(id: id, label: label, kind: kind, dueEpochMilliseconds: Int64(due)))
        }
        let next = json["next_id"]?.numberValue ?? 1
        state.nextID = next.isFinite && next >= 1 && next < 1e9 ? Int(next) : 1
        return state
    }

    /// `07:00`, `7:00`, `18:30`: (hour, minute); nil otherwise.
    static func timeOfDay(_ text: String) -> (Int, Int)? {
        let parts = text.trimmed().split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return (hour, minute)
    }

    /// The first `hour:minute` on this machine's local clock after `epochMilliseconds` (`mktime` resolves
    /// the local date with daylight saving; a time skipped by a spring-forward lands an hour later).
    static func nextOccurrence(hour: Int, minute: Int, afterEpochMilliseconds epochMilliseconds: Int64) -> Int64 {
        var now = time_t(epochMilliseconds / 1000)
        var fields = tm()
        localtime_r(&now, &fields)
        for dayOffset in 0...2 {
            var candidate = fields
            candidate.tm_mday += Int32(dayOffset)
            candidate.tm_hour = Int32(hour)
            candidate.tm_min = Int32(minute)
            candidate.tm_sec = 0
            candidate.tm_isdst = -1
            let seconds = mktime(&candidate)
            if seconds != -1, Int64(seconds) * 1000 > epochMilliseconds { return Int64(seconds) * 1000 }
        }
        return epochMilliseconds + 24 * 3600 * 1000
    }
}

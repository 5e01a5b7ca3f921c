import AudioCore
import Basics
import Glibc
import HTTP
import Logging
import Media
import Synchronization
import TestProcess
import TestSupport

/// A `MediaOutput` that plays like a device: it drains its queue at `speed` × real time and accepts
/// only what fits in `capacity` seconds (back-pressure), so positions move as they would on the box.
final class PacedOutput: MediaOutput, @unchecked Sendable {
    struct Counters {
        var queued = 0.0
        var lastUpdate: ContinuousClock.Instant?
        var acceptedSeconds = 0.0
        var nonZeroSamples = 0
        var flushes = 0
        var finishes = 0
    }

    let speed: Double
    let capacity: Double
    private let counters = Mutex(Counters())

    init(speed: Double = 1, capacity: Double = 0.3) {
        self.speed = speed
        self.capacity = capacity
    }

    private static func drain(_ c: inout Counters, speed: Double) {
        let now = ContinuousClock.now
        if let last = c.lastUpdate {
            let elapsed = now - last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            c.queued = max(0, c.queued - seconds * speed)
        }
        c.lastUpdate = now
    }

    func write(_ samples: UnsafeBufferPointer<Int16>, format: AudioFormat) -> Int {
        counters.withLock { c in
            Self.drain(&c, speed: speed)
            let room = max(0, capacity - c.queued)
            let frames = min(samples.count / format.channels, Int(room * Double(format.sampleRate)))
            guard frames > 0 else { return 0 }
            let seconds = Double(frames) / Double(format.sampleRate)
            c.queued += seconds
            c.acceptedSeconds += seconds
            for sample in samples.prefix(frames * format.channels) where sample != 0 { c.nonZeroSamples += 1 }
            return frames
        }
    }

    func finish() { counters.withLock { $0.finishes += 1 } }

    func flush() {
        counters.withLock {
            $0.queued = 0
            $0.flushes += 1
        }
    }

    var queuedSeconds: Double {
        counters.withLock { c in
            Self.drain(&c, speed: speed)
            return c.queued
        }
    }

    var snapshot: Counters { counters.withLock { $0 } }
}

/// Everything the player emitted, in order.
final class PlayerEventLog: Sendable {
    private let events = Mutex<[MediaPlayerEvent]>([])
    func append(_ event: MediaPlayerEvent) { events.withLock { $0.append(event) } }
    var all: [MediaPlayerEvent] { events.withLock { $0 } }
}

/// Polls `condition` until it holds or `timeout` passes (generous: a loaded 2-core machine).
func eventually(timeout: Duration = hangTimeout, _ condition: () async -> Bool) async -> Bool {
    await waitUntil(timeout: timeout, interval: .milliseconds(20), condition)
}

/// A player on `server` with short timeouts and backoff.
struct PlayerFixture {
    let player: MediaPlayer
    let events: PlayerEventLog
    let output: PacedOutput

    init(
        stateDir: String, client: HTTPClient, server: MediaStandIn?, output: PacedOutput = PacedOutput(),
        adjust: (inout MediaPlayerConfiguration) -> Void = { _ in }
    ) {
        var stream = MediaStreamSettings()
        stream.prebuffer = .milliseconds(100)
        stream.reconnect = Backoff(initial: .milliseconds(50), maximum: .milliseconds(200), jitter: 0.25)
        stream.maxConsecutiveFailures = 2
        stream.backPressurePoll = .milliseconds(5)
        stream.connectTimeout = .seconds(5)
        var configuration = MediaPlayerConfiguration(
            stateDir: stateDir, stream: stream, resumeRewind: .seconds(1),
            finishedMargin: .milliseconds(300))
        configuration.stationCatalogURL = server?.url("/channels.json") ?? "http://127.0.0.1:9/channels.json"
        // A hang guard: under the full suite a start that takes 0.1 s alone can take tens of seconds.
        configuration.startLimit = hangTimeout
        adjust(&configuration)
        let events = PlayerEventLog()
        var logger = Logger(label: "media-player-test")
        logger.logLevel = .warning
        self.events = events
        self.output = output
        player = MediaPlayer(configuration: configuration, client: client, output: output, logger: logger) { events.append($0) }
    }
}

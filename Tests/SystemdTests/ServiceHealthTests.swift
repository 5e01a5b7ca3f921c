import Testing

@testable import Systemd

/// `ServiceHealth` driven by hand: times are CLOCK_MONOTONIC-style nanoseconds the test advances.
@Suite struct ServiceHealthTests {
    static let second: Int64 = 1_000_000_000
    static let mic = "capture device plughw:respeaker"
    static let speaker = "playback device default"

    /// A service whose loops are observed every `tickEvery`; the audio service loop always ticks.
    struct Rig {
        var health = ServiceHealth(stuckAfter: .seconds(2), serviceLoopStaleAfter: .seconds(5))
        var now: Int64 = 1_000 * ServiceHealthTests.second
        var micOpen = true
        var speakerOpen = true
        var micLastPeriod: Int64 = 0
        var speakerLastPeriod: Int64 = 0
        var serviceTick: Int64 = 0
        /// Periods and service ticks keep coming while a loop is alive.
        var micFlows = true
        var serviceLoopAlive = true

        mutating func tick(after seconds: Double) -> [ServiceHealth.Effect] {
            now += Int64(seconds * Double(ServiceHealthTests.second))
            if micOpen && micFlows { micLastPeriod = now - 10_000_000 }
            if speakerOpen { speakerLastPeriod = now - 10_000_000 }
            if serviceLoopAlive { serviceTick = now - 50_000_000 }
            return health.tick(
                ServiceHealth.Observation(
                    now: now,
                    devices: [
                        .init(name: ServiceHealthTests.mic, isOpen: micOpen, lastPeriodNanoseconds: micLastPeriod),
                        .init(name: ServiceHealthTests.speaker, isOpen: speakerOpen, lastPeriodNanoseconds: speakerLastPeriod)
                    ], serviceLoopTick: serviceTick))
        }
    }

    @Test func noDeviceAtStartWaitsAndKeepsPinging() {
        var rig = Rig()
        rig.micOpen = false
        rig.speakerOpen = false
        let first = rig.tick(after: 0)
        #expect(first.contains(.status("waiting for \(Self.mic) and \(Self.speaker)…")))
        #expect(first.contains(.watchdog), "no device is no reason to be restarted")
        #expect(first.contains(.notice("waiting for \(Self.mic) and \(Self.speaker) (the service keeps running and picks it up when it appears)")))
        for _ in 0..<100 {
            #expect(rig.tick(after: 5) == [.watchdog], "nothing new to say, still alive")
        }
        rig.speakerOpen = true
        #expect(
            rig.tick(after: 5) == [
                .notice("waiting for \(Self.mic) (the service keeps running and picks it up when it appears)"),
                .status("waiting for \(Self.mic)…"), .watchdog
            ])
        rig.micOpen = true
        #expect(rig.tick(after: 5) == [.notice("audio running: \(Self.mic) and \(Self.speaker) open"), .status("idle"), .watchdog])
        #expect(rig.health.engineStateChanged("idle") == [], "unchanged")
        #expect(rig.health.engineStateChanged("listening") == [.status("listening")])
    }

    @Test func longUnplugKeepsTheWatchdogFedAndReplugResumes() {
        var rig = Rig()
        _ = rig.tick(after: 0)
        _ = rig.health.engineStateChanged("idle")
        #expect(rig.tick(after: 5) == [.watchdog])

        // Unplugged for ten minutes: the capture loop is in its reopen backoff, the rest runs.
        rig.micOpen = false
        let unplugged = rig.tick(after: 5)
        #expect(
            unplugged == [
                .notice("waiting for \(Self.mic) (the service keeps running and picks it up when it appears)"),
                .status("waiting for \(Self.mic)…"), .watchdog
            ])
        for _ in 0..<120 {
            #expect(rig.tick(after: 5) == [.watchdog])
        }
        // The engine changes state meanwhile: STATUS keeps naming the missing device.
        #expect(rig.health.engineStateChanged("listening") == [])

        // Replugged: the reopened device's last period is ten minutes old; that is not a hang.
        rig.micOpen = true
        rig.micFlows = false
        #expect(rig.tick(after: 1) == [.notice("audio running: \(Self.mic) and \(Self.speaker) open"), .status("listening"), .watchdog])
        rig.micFlows = true
        #expect(rig.tick(after: 1) == [.watchdog])
    }

    @Test func openDeviceWithoutPeriodsWithholdsPings() {
        var rig = Rig()
        _ = rig.tick(after: 0)
        _ = rig.tick(after: 1)
        rig.micFlows = false
        #expect(rig.tick(after: 1) == [.watchdog], "1 s without a period: not yet hung")
        let hung = rig.tick(after: 1.5)
        #expect(hung == [.error("\(Self.mic) is open but completed no period for 2.5 s; withholding watchdog pings so systemd restarts the service")])
        #expect(rig.tick(after: 5) == [], "still hung: no ping, no repeated line")
        rig.micFlows = true
        #expect(rig.tick(after: 1) == [.notice("service loops are alive again; watchdog pings resumed"), .watchdog])
    }

    @Test func stalledServiceLoopWithholdsPings() {
        var rig = Rig()
        _ = rig.tick(after: 0)
        rig.serviceLoopAlive = false
        #expect(rig.tick(after: 4) == [.watchdog])
        #expect(
            rig.tick(after: 2) == [.error("the audio service loop has not run for 6.0 s; withholding watchdog pings so systemd restarts the service")]
        )
        rig.serviceLoopAlive = true
        #expect(rig.tick(after: 1) == [.notice("service loops are alive again; watchdog pings resumed"), .watchdog])
    }

    @Test func serviceLoopThatNeverTicksCountsFromTheFirstObservation() {
        var health = ServiceHealth(stuckAfter: .seconds(2), serviceLoopStaleAfter: .seconds(5))
        let start: Int64 = 50 * Self.second
        func observe(_ at: Int64) -> [ServiceHealth.Effect] {
            health.tick(.init(now: at, devices: [], serviceLoopTick: 0))
        }
        #expect(observe(start).contains(.watchdog))
        #expect(observe(start + 4 * Self.second) == [.watchdog])
        #expect(observe(start + 6 * Self.second).contains(.watchdog) == false)
    }
}

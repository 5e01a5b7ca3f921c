import TestProcess
import Testing

@testable import Systemd

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SDNotifyTests {
    @Test(arguments: [true, false])
    func sendsExactMessages(abstract: Bool) throws {
        let listener = NotifyListener(abstract: abstract)
        let notify = SDNotify(environment: ["NOTIFY_SOCKET": listener.address])
        #expect(notify.isEnabled)

        #expect(try notify.ready(status: "Listening for the button"))
        #expect(listener.receive() == "READY=1\nSTATUS=Listening for the button")
        #expect(try notify.ready())
        #expect(listener.receive() == "READY=1")
        #expect(try notify.status("two\nlines"))
        #expect(listener.receive() == "STATUS=two lines")
        #expect(try notify.watchdog())
        #expect(listener.receive() == "WATCHDOG=1")
        #expect(try notify.stopping())
        #expect(listener.receive() == "STOPPING=1")
        #expect(try notify.reloading(monotonicMicroseconds: 123_456_789))
        #expect(listener.receive() == "RELOADING=1\nMONOTONIC_USEC=123456789")
    }

    @Test func reloadingUsesTheMonotonicClock() throws {
        let listener = NotifyListener(abstract: true)
        let notify = SDNotify(environment: ["NOTIFY_SOCKET": listener.address])
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let before = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        try notify.reloading()
        let message = try #require(listener.receive())
        let lines = message.split(separator: "\n")
        #expect(lines.first == "RELOADING=1")
        let usec = try #require(lines.last.flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) })
        #expect(usec >= before && usec < before + 5_000_000)
    }

    @Test func withoutNotifySocketNothingIsSent() throws {
        let notify = SDNotify(environment: [:])
        #expect(!notify.isEnabled)
        #expect(try notify.ready() == false)
        #expect(try notify.watchdog() == false)
    }

    @Test func unreachableSocketIsAnError() {
        let notify = SDNotify(environment: ["NOTIFY_SOCKET": "/tmp/jarvis-voice-no-such-socket-\(getpid())"])
        do {
            try notify.ready()
            Issue.record("sending to a missing socket succeeded")
        } catch {
            #expect(error.description.hasPrefix("sendto() on NOTIFY_SOCKET /tmp/jarvis-voice-no-such-socket-"))
            #expect(error.description.hasSuffix("failed: No such file or directory"))
        }
        let tooLong = SDNotify(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)])
        #expect(throws: SystemdError.self) { try tooLong.ready() }
    }

    @Test func watchdogLoopPingsUntilCancelled() async throws {
        let listener = NotifyListener(abstract: true)
        let notify = SDNotify(environment: [
            "NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "100000", "WATCHDOG_PID": "\(getpid())"
        ])
        #expect(notify.watchdogPingInterval == .milliseconds(50))
        let task = Task { await notify.keepWatchdogAlive() }
        #expect(await listener.receive(within: .seconds(10)) == "WATCHDOG=1")
        #expect(await listener.receive(within: .seconds(10)) == "WATCHDOG=1")
        task.cancel()
        await task.value
    }

    @Test func watchdogLoopReturnsWhenDisabled() async {
        await SDNotify(environment: ["WATCHDOG_USEC": "100000"]).keepWatchdogAlive()
        await SDNotify(environment: ["NOTIFY_SOCKET": "@x"]).keepWatchdogAlive()
        #expect(SDNotify(environment: ["NOTIFY_SOCKET": "@x"]).watchdogPingInterval == nil)
    }

    @Test func watchdogInterval() {
        let pid: Int32 = 4242
        #expect(SDNotify.watchdogTimeout(environment: ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "4242"], pid: pid) == .seconds(20))
        #expect(SDNotify.watchdogTimeout(environment: ["WATCHDOG_USEC": "20000000"], pid: pid) == .seconds(20))
        #expect(SDNotify.watchdogTimeout(environment: ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "1"], pid: pid) == nil)
        #expect(SDNotify.watchdogTimeout(environment: ["WATCHDOG_USEC": "0"], pid: pid) == nil)
        #expect(SDNotify.watchdogTimeout(environment: ["WATCHDOG_USEC": "soon"], pid: pid) == nil)
        #expect(SDNotify.watchdogTimeout(environment: [:], pid: pid) == nil)

        let notify = SDNotify(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid())"])
        #expect(notify.watchdogTimeout == .seconds(3))
        #expect(notify.watchdogPingInterval == .milliseconds(1500))
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Systemd

/// A datagram socket standing in for systemd's notify socket.
final class NotifyListener {
    let fd: Int32
    let address: String

    /// `abstract`: bind in the abstract namespace and return "@name"; else a path under /tmp.
    init(abstract: Bool) {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        precondition(fd >= 0)
        let name = "jarvis-voice-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array((abstract ? "@" + name : "/tmp/" + name).utf8)
        address = String(decoding: bytes, as: UTF8.self)
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        precondition(bound == 0, "bind failed: \(errno)")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        if !address.hasPrefix("@") { unlink(address) }
    }

    /// The next datagram, or nil after the 10 s timeout. Blocks: only for datagrams already sent.
    func receive() -> String? {
        receive(flags: 0)
    }

    /// The next datagram, or nil after `timeout`. Polls instead of blocking so that the sender,
    /// itself a task, gets a cooperative thread even when the pool is small and busy.
    func receive(within timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let message = receive(flags: Int32(MSG_DONTWAIT)) { return message }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func receive(flags: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, flags)
            if count >= 0 { return String(decoding: buffer[0..<count], as: UTF8.self) }
            if errno != EINTR { return nil }
        }
    }
}

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
            "NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "100000", "WATCHDOG_PID": "\(getpid())",
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

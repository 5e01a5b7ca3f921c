import Glibc

/// A datagram socket standing in for systemd's notify socket ($NOTIFY_SOCKET) in tests.
public final class NotifyListener {
    public let fd: Int32
    public let address: String

    /// `abstract`: bind in the abstract namespace and return "@name"; else a path under /tmp.
    public init(abstract: Bool) {
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
    public func receive() -> String? {
        receive(flags: 0)
    }

    /// The next datagram, or nil after `timeout`. Polls instead of blocking so that the sender,
    /// itself a task, gets a cooperative thread even when the pool is small and busy.
    public func receive(within timeout: Duration) async -> String? {
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

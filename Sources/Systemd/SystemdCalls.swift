#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The only caller of POSIX APIs in this module: the notify datagram, clocks, stderr writes.
enum SystemdCalls {
    /// Sends one datagram to the `$NOTIFY_SOCKET` address (a path, or `@name` for the abstract namespace).
    static func sendDatagram(_ message: String, to address: String) throws(SystemdError) {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(address.utf8)
        let abstract = pathBytes.first == UInt8(ascii: "@")
        if abstract { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        // A filesystem path needs its NUL terminator; an abstract name is length-delimited.
        guard !pathBytes.isEmpty, pathBytes.count + (abstract ? 0 : 1) <= capacity else {
            throw SystemdError("NOTIFY_SOCKET address \"\(address)\" is not a valid Unix socket address")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + (abstract ? 0 : 1))

        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemdError(function: "socket", address: address) }
        defer { close(fd) }
        let payload = Array(message.utf8)
        while true {
            let sent = payload.withUnsafeBytes { bytes in
                withUnsafePointer(to: &addr) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                        sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), sockaddrPointer, length)
                    }
                }
            }
            if sent >= 0 { return }
            if errno == EINTR { continue }
            throw SystemdError(function: "sendto", address: address)
        }
    }

    /// CLOCK_MONOTONIC in microseconds, as systemd expects in `MONOTONIC_USEC=`.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    static func processID() -> Int32 { getpid() }

    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "="), result[String(text[..<equals])] == nil {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    enum WriteMode { case unknown, socket, stream }

    /// Writes `bytes` to `fd` without blocking longer than `budgetMilliseconds` in total: sockets
    /// (journald's stdout stream) are written with MSG_DONTWAIT, other fds after poll(POLLOUT).
    /// Returns false if the bytes were (partly) dropped.
    static func writeBounded(fd: Int32, bytes: UnsafeRawBufferPointer, mode: inout WriteMode, budgetMilliseconds: Int32) -> Bool {
        var offset = 0
        var budget = budgetMilliseconds
        while offset < bytes.count {
            let pointer = bytes.baseAddress! + offset
            let remaining = bytes.count - offset
            let written: Int
            if mode == .stream {
                guard waitWritable(fd: fd, budget: &budget) else { return false }
                written = write(fd, pointer, remaining)
            } else {
                written = send(fd, pointer, remaining, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if written >= 0 {
                if mode == .unknown { mode = .socket }
                offset += written
                continue
            }
            switch errno {
            case EINTR:
                continue
            case ENOTSOCK:
                mode = .stream
            case EAGAIN, EWOULDBLOCK:
                guard waitWritable(fd: fd, budget: &budget) else { return false }
            default:
                return false
            }
        }
        return true
    }

    private static func waitWritable(fd: Int32, budget: inout Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while true {
            let start = monotonicMicroseconds()
            let ready = poll(&descriptor, 1, budget)
            let spent = Int32(min((monotonicMicroseconds() - start) / 1000, UInt64(Int32.max)))
            budget = max(0, budget - spent)
            if ready > 0 { return descriptor.revents & Int16(POLLOUT) != 0 }
            if ready == 0 || errno != EINTR || budget == 0 { return false }
        }
    }

    static let standardErrorFD: Int32 = 2
}

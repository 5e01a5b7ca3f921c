#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A failed systemd interaction (notify socket), naming the call and address.
public struct SystemdError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }

    /// From `errno` right after a failed `function`.
    init(function: String, address: String) {
        let reason = String(cString: strerror(errno))
        self.description = "\(function)() on NOTIFY_SOCKET \(address) failed: \(reason)"
    }
}

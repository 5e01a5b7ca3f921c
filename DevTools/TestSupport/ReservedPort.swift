import Glibc
import Synchronization

/// Holds a TCP port on 127.0.0.1 bound but not listening: a connection to it is refused, as to a server
/// that went down, and no other server can take the port while this lives. A stand-in that stops keeps its
/// port this way (`StandInListener.stop`, `RealtimeStandIn.shutdown`), so a test that stopped its server to
/// see "unreachable" does not reach another test's server that happened to bind the freed port (the suites
/// run in parallel: the media stand-in once answered a stopped one's URL with 404, and once with 401). The
/// stand-ins listen with SO_REUSEPORT and take the reservation (`sharing`) before they close: there is no
/// moment in which the port is free. (A port chosen by the kernel, `bind` to port 0, is never one shared
/// this way.) A test that only needs a port nobody answers on takes a fresh one (`ReservedPort.fresh()`).
public final class ReservedPort: Sendable {
    private let descriptor: Mutex<Int32>
    public let port: Int

    /// A port the kernel picks, held from the start.
    public static func fresh() throws -> ReservedPort {
        guard let reserved = ReservedPort(0) else { throw ReservedPortError() }
        return reserved
    }

    /// nil when the port could not be bound. `sharing`: alongside the port's listener, which set SO_REUSEPORT
    /// too (`ChannelOptions.standInReusePort`).
    init?(_ port: Int, sharing: Bool = false) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        if sharing { _ = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &yes, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard bound == 0,
            withUnsafeMutablePointer(
                to: &address,
                {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
                }) == 0
        else {
            close(fd)
            return nil
        }
        descriptor = Mutex(fd)
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        descriptor.withLock { _ = close($0) }
    }
}

public struct ReservedPortError: Error, CustomStringConvertible {
    public var description: String { "could not bind a port on 127.0.0.1" }
}

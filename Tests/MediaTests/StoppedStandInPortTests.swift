import Glibc
import TestSupport
import Testing

/// A stopped stand-in keeps its port (`ReservedPort`, taken before the listener closes): a connection is
/// refused, as to a server that went down, and the port cannot be bound by anyone else.
@Suite struct StoppedStandInPortTests {
    @Test func aStoppedMediaStandInsPortRefusesAndStaysTaken() async throws {
        let server = try await MediaStandIn.start()
        #expect(Self.connectError(server.port) == 0, "listening before the stop")
        await server.stop()
        #expect(Self.connectError(server.port) == ECONNREFUSED)
        #expect(Self.bindError(server.port) == EADDRINUSE)
    }

    @Test func aShutDownRealtimeStandInsPortRefusesAndStaysTaken() async throws {
        let realtime = try await RealtimeStandIn.start()
        #expect(Self.connectError(realtime.port) == 0, "listening before the shutdown")
        await realtime.shutdown()
        #expect(Self.connectError(realtime.port) == ECONNREFUSED)
        #expect(Self.bindError(realtime.port) == EADDRINUSE)
    }

    /// errno of a TCP connect to 127.0.0.1:`port` (0: connected).
    static func connectError(_ port: Int) -> Int32 {
        withSocket(port) { fd, address in connect(fd, address, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }

    /// errno of a plain bind to 127.0.0.1:`port` (0: bound).
    static func bindError(_ port: Int) -> Int32 {
        withSocket(port) { fd, address in bind(fd, address, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }

    private static func withSocket(_ port: Int, _ call: (Int32, UnsafePointer<sockaddr>) -> Int32) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0) } }
        return result == 0 ? 0 : errno
    }
}

import Control
import Glibc
import TestProcess
import TestSupport
import Testing

/// NIO creates sockets without close-on-exec; the control server and the stand-ins mark their
/// listening and accepted sockets so that children spawned meanwhile do not inherit them.
@Suite struct CloseOnExecTests {
    let dir = TemporaryDirectory()

    /// For each socket of this process whose local address matches: is it close-on-exec?
    static func sockets(matching matches: (sockaddr_storage) -> Bool) -> [Bool] {
        guard let fds = opendir("/proc/self/fd") else { return [] }
        defer { closedir(fds) }
        var result: [Bool] = []
        while let entry = readdir(fds) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard let fd = Int32(name) else { continue }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0, matches(address) else { continue }
            let flags = fcntl(fd, F_GETFD)
            result.append(flags >= 0 && flags & FD_CLOEXEC != 0)
        }
        return result
    }

    /// Polls until at least `count` matching sockets exist and all are close-on-exec, or 10 s pass.
    /// NIO accepts a connection before the child channel initializer marks it, so an accepted socket
    /// is briefly inheritable (ChildProcess closes descriptors >= 3 in its children for that reason).
    static func waitForSockets(_ count: Int, matching matches: (sockaddr_storage) -> Bool) async throws -> [Bool] {
        var found: [Bool] = []
        _ = await waitUntil {
            found = sockets(matching: matches)
            return found.count >= count && found.allSatisfy { $0 }
        }
        return found
    }

    @Test func standInListeningAndAcceptedSocketsAreCloseOnExec() async throws {
        let standIn = try await TermLLMStandIn.start()
        let port = UInt16(standIn.port)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        // The listener and the accepted connection have the stand-in's port as local port; the
        // client's local port is ephemeral.
        let found = try await Self.waitForSockets(2) { storage in
            guard storage.ss_family == sa_family_t(AF_INET) else { return false }
            return withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self).sin_port } == port.bigEndian
        }
        await standIn.stop()
        #expect(found.count >= 2)
        #expect(found.allSatisfy { $0 }, "\(found)")
    }

    @Test func controlServerListeningAndAcceptedSocketsAreCloseOnExec() async throws {
        let path = dir.file("control.sock")
        let server = try await ControlServer.bind(path: path, handler: RecordingHandler(), executor: StandInExecutor.shared)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let client = RawSocket.connect(path)
            defer { close(client) }
            // Linux reports the listener's path as the local address of accepted Unix sockets too;
            // the client's own socket is unnamed.
            let found = try await Self.waitForSockets(2) { storage in
                guard storage.ss_family == sa_family_t(AF_UNIX) else { return false }
                let local = withUnsafeBytes(of: storage) { raw in
                    raw.withMemoryRebound(to: CChar.self) { chars in
                        (Array(chars[MemoryLayout<sa_family_t>.size...]) + [0]).withUnsafeBufferPointer {
                            String(cString: $0.baseAddress!)
                        }
                    }
                }
                return local == path
            }
            #expect(found.count >= 2)
            #expect(found.allSatisfy { $0 }, "\(found)")
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}

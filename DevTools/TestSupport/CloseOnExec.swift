import Glibc
import NIOCore

/// NIO creates listening and accepted sockets without SOCK_CLOEXEC. Suites run in parallel in one
/// process; a child spawned meanwhile (by any code, not only `ChildProcess`) would inherit a
/// stand-in's listening socket and keep it accepting after the stand-in stopped, so clients see
/// "connection reset" instead of "connection refused". Stand-ins mark every socket close-on-exec.
public enum CloseOnExec {
    /// Marks `channel`'s socket close-on-exec. Call on the channel's event loop (in an initializer).
    public static func mark(_ channel: any Channel) throws {
        _ = try channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) { fd in
            let flags = fcntl(fd, F_GETFD)
            guard flags >= 0, fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0 else {
                throw IOError(errnoCode: errno, reason: "fcntl(F_SETFD, FD_CLOEXEC)")
            }
        }
    }
}

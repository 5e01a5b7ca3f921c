import Glibc
import NIOCore
import NIOPosix
import Synchronization

/// The listening socket of an HTTP stand-in (term-llm, media) on 127.0.0.1: NIO's callback bootstrap
/// hands every accepted connection, wrapped, to `serve` in a task of its own, and `stop` closes the socket
/// and then cancels and awaits those tasks.
///
/// Not the async `bind`: its stream of connections drops one accepted while the server closes, and NIO
/// traps when such an unserved connection is released ("Deinited NIOAsyncWriter without calling
/// finish()", apple/swift-nio#2637). That crashed the whole test process about once in forty full runs
/// on a loaded machine. Here every wrapped connection reaches `serve`, whose `executeThenClose` finishes it.
final class StandInListener: Sendable {
    let port: Int
    private let channel: any Channel
    private let connections: ConnectionTasks
    /// After `stop`: the port, still held (bound, not listening) so that connections are refused.
    private let stoppedPort = Mutex<ReservedPort?>(nil)

    /// `configure` builds the connection's pipeline and wraps it (on its event loop); `serve` runs it.
    static func bind<Connection: Sendable>(
        port: Int,
        configure: @escaping @Sendable (any Channel) throws -> Connection,
        serve: @escaping @Sendable (Connection) async -> Void
    ) async throws -> StandInListener {
        let connections = ConnectionTasks()
        let channel = try await listen(port: port) { channel in
            let connection = try configure(channel)
            connections.start { await serve(connection) }
        }
        return StandInListener(channel: channel, connections: connections)
    }

    /// A listening socket on 127.0.0.1 (NIO's callback bootstrap, sockets close-on-exec); `child` sets up
    /// each accepted connection on its event loop.
    static func listen(port: Int, child: @escaping @Sendable (any Channel) throws -> Void) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(ChannelOptions.standInReusePort, value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try CloseOnExec.mark(channel) }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try CloseOnExec.mark(channel)
                    try child(channel)
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
    }

    private init(channel: any Channel, connections: ConnectionTasks) {
        self.channel = channel
        self.connections = connections
        port = channel.localAddress?.port ?? 0
    }

    /// Keeps its port (`ReservedPort`) and closes the listening socket, then cancels the connections (each
    /// still ends in its `serve`) and waits for them.
    func stop() async {
        stoppedPort.withLock { if $0 == nil { $0 = ReservedPort(port, sharing: true) } }
        try? await channel.close()
        await connections.cancelAndWait()
    }
}

/// The tasks serving a listener's connections.
private final class ConnectionTasks: Sendable {
    private struct State {
        var next = 0
        var running: [Int: Task<Void, Never>] = [:]
        var cancelled = false
    }

    private let state = Mutex(State())

    func start(_ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let id = state.next
            state.next += 1
            // Inserted before the lock is released, so the task's own removal always comes after.
            let task = Task(executorPreference: StandInExecutor.shared) {
                await body()
                self.finished(id)
            }
            if state.cancelled { task.cancel() }
            state.running[id] = task
        }
    }

    func cancelAndWait() async {
        let tasks = state.withLock { state in
            state.cancelled = true
            return Array(state.running.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private func finished(_ id: Int) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }
}

extension ChannelOptions {
    /// SO_REUSEPORT on a stand-in's listening socket: when it stops, its `ReservedPort` binds the port before
    /// the listener closes, so the port is never free in between.
    static let standInReusePort = ChannelOptions.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT))
}

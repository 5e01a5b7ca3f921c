import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The control socket: a Unix stream socket, one JSON request line in, one JSON response line out,
/// then the connection closes (see `ControlWire`). Clients are served concurrently; each has a read
/// deadline, a handler deadline and a write deadline, so a slow or broken client only ever holds
/// its own connection. At the connection limit a new client pushes out the oldest one that has not
/// sent its request yet (a flood of silent or dribbling connections cannot lock `ctl` out); only
/// when every slot is busy with a request is the newcomer told "busy". Runs as a `Service`; graceful
/// shutdown stops accepting, lets in-flight requests finish and removes the socket file.
public final class ControlServer: Service, Sendable {
    public struct Limits: Sendable {
        /// The request line must arrive within this time after connecting. Default 5 s.
        public var requestTimeout: Duration
        /// Longest wait for the handler (it is cancelled, and the client told so). Default 10 s; a command
        /// that answers later by design (`say`) gets its `ControlCommand.answerTime`.
        public var handlerTimeout: Duration
        /// Writing the response may take this long (a client that does not read). Default 5 s.
        public var writeTimeout: Duration
        /// Simultaneous clients. Beyond it the oldest client still waiting for its request line is
        /// disconnected; if none is waiting, the newcomer is answered "busy". Default 16.
        public var maxConnections: Int
        /// Longest request line. Default `ControlWire.maxLineBytes` (64 KiB).
        public var maxLineBytes: Int

        public init(
            requestTimeout: Duration = .seconds(5), handlerTimeout: Duration = .seconds(10),
            writeTimeout: Duration = .seconds(5), maxConnections: Int = 16, maxLineBytes: Int = ControlWire.maxLineBytes
        ) {
            self.requestTimeout = requestTimeout
            self.handlerTimeout = handlerTimeout
            self.writeTimeout = writeTimeout
            self.maxConnections = maxConnections
            self.maxLineBytes = maxLineBytes
        }
    }

    public let path: String
    private let handler: any ControlHandler
    private let logger: Logger
    private let limits: Limits
    private let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let identity: ControlSocketCalls.PathState
    private let activeConnections = Atomic<Int>(0)
    private let connectionSerial = Atomic<Int>(0)
    /// Connections still waiting for their request line, by arrival order (serial), for eviction.
    private let awaitingRequest = Mutex<[Int: any Channel]>([:])
    private let cancelled = Atomic<Bool>(false)
    private let executor: (any TaskExecutor)?

    private init(
        path: String, handler: any ControlHandler, logger: Logger, limits: Limits, executor: (any TaskExecutor)?,
        listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, identity: ControlSocketCalls.PathState
    ) {
        self.path = path
        self.handler = handler
        self.logger = logger
        self.limits = limits
        self.executor = executor
        self.listener = listener
        self.identity = identity
    }

    /// The socket file's default mode: owner and group (the service's group, `jarvis-voice` under the
    /// shipped unit) may connect; others may not.
    public static let defaultSocketMode: UInt32 = 0o660

    /// Creates the socket (and missing parent directories) with `socketMode` (default 0660). A stale socket file (a
    /// socket nobody answers on) is removed; a live one means another instance is running and is an
    /// error, as is a path that is not a socket. Call before starting devices so a second instance
    /// fails fast; then run the server in the `ServiceGroup`. The server's tasks (accepting, serving,
    /// the handler's calls) prefer `executor` when one is given, else they run on the default pool.
    public static func bind(
        path: String, handler: any ControlHandler, logger: Logger = Logger(label: "control"), limits: Limits = Limits(),
        socketMode: UInt32 = ControlServer.defaultSocketMode, executor: (any TaskExecutor)? = nil
    ) async throws(ControlServerError) -> ControlServer {
        try ControlSocketCalls.createParentDirectories(of: path)
        switch try ControlSocketCalls.pathState(path) {
        case .absent:
            break
        case .other:
            throw .notASocket(path: path)
        case .socket:
            if try ControlSocketCalls.somethingAnswers(path) { throw .alreadyRunning(path: path) }
            logger.notice("removing stale control socket \(path) (nothing answers on it)")
            try ControlSocketCalls.unlinkSocket(path)
        }
        let maxLineBytes = limits.maxLineBytes
        let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try closeOnExec(channel) }
                }
                .bind(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try closeOnExec(channel)
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(ControlLineDecoder(maxLength: maxLineBytes)))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError where ControlSocketCalls.isAddressInUse(error.errnoCode) {
            throw .alreadyRunning(path: path)  // lost a start-up race against another instance
        } catch {
            throw .bind(path: path, detail: "\(error)")
        }
        do {
            try ControlSocketCalls.setMode(path, socketMode & 0o777)
            let identity = try ControlSocketCalls.pathState(path)
            logger.info("control socket listening on \(path)")
            return ControlServer(
                path: path, handler: handler, logger: logger, limits: limits, executor: executor, listener: listener, identity: identity)
        } catch {
            try? await listener.channel.close()
            ControlSocketCalls.removeIfSame(path, as: (try? ControlSocketCalls.pathState(path)) ?? .absent)
            throw error
        }
    }

    /// Serves until graceful shutdown or cancellation, then removes the socket file.
    public func run() async throws {
        let channel = listener.channel
        defer { ControlSocketCalls.removeIfSame(path, as: identity) }
        // The accept loop runs in its own task so that cancellation never reaches its iterator: a
        // cancelled NIO inbound stream drops the connections it accepted but has not handed out yet,
        // and NIO traps (preconditionFailure, release builds too) when such a connection is deinited
        // unfinished. Cancellation closes the listener instead, which ends the stream in order.
        let acceptLoop = Task(executorPreference: executor) { try await self.acceptConnections() }
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await acceptLoop.value
            } onCancel: {
                self.cancelled.store(true, ordering: .sequentiallyConsistent)
                channel.close(promise: nil)
            }
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }

    private func acceptConnections() async throws {
        try await listener.executeThenClose { connections in
            await withDiscardingTaskGroup { group in
                do {
                    for try await connection in connections {
                        if cancelled.load(ordering: .sequentiallyConsistent) {
                            // Accepted just before the listener closed: hang up properly.
                            group.addTask { try? await connection.executeThenClose { _, _ in } }
                        } else {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                } catch {
                    logger.debug("control socket accept loop ended: \(error)")
                }
                // run() was cancelled: so are the connections in flight (graceful shutdown lets them finish).
                if cancelled.load(ordering: .sequentiallyConsistent) { group.cancelAll() }
            }
        }
    }

    /// Stops accepting without running (for a server that was bound but never run).
    public func close() async {
        try? await listener.channel.close()
        ControlSocketCalls.removeIfSame(path, as: identity)
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let active = activeConnections.wrappingAdd(1, ordering: .relaxed).newValue
        defer { activeConnections.wrappingSubtract(1, ordering: .relaxed) }
        let channel = connection.channel
        let serial = connectionSerial.wrappingAdd(1, ordering: .relaxed).newValue
        let admitted = active <= limits.maxConnections || evictOldestAwaitingRequest()
        if admitted { awaitingRequest.withLock { $0[serial] = channel } }
        defer { awaitingRequest.withLock { _ = $0.removeValue(forKey: serial) } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                let reply = { (response: ControlResponse) in try await self.write(response, to: outbound, channel: channel) }
                guard admitted else {
                    try await reply(.failed("busy: more than \(limits.maxConnections) control clients at once; try again"))
                    return
                }
                // A client that sends no complete line in time is disconnected without an answer.
                let readTimer = channel.eventLoop.scheduleTask(in: TimeAmount(limits.requestTimeout)) {
                    channel.close(promise: nil)
                }
                var lines = inbound.makeAsyncIterator()
                let line: ByteBuffer?
                do {
                    line = try await lines.next()
                } catch {
                    readTimer.cancel()
                    try await reply(.failed("\(error)"))  // e.g. the line is too long
                    return
                }
                readTimer.cancel()
                awaitingRequest.withLock { _ = $0.removeValue(forKey: serial) }
                guard let line else { return }
                try await answer(line, reply: reply)
            }
        } catch {
            logger.debug("control client: \(error)")
        }
    }

    /// Closes the longest-waiting connection that has not sent a complete request line; false when
    /// there is none (every slot is busy with a request).
    private func evictOldestAwaitingRequest() -> Bool {
        let oldest = awaitingRequest.withLock { waiting -> (any Channel)? in
            guard let serial = waiting.keys.min() else { return nil }
            return waiting.removeValue(forKey: serial)
        }
        guard let oldest else { return false }
        logger.debug("control socket full: disconnecting the oldest client that sent no request")
        oldest.close(promise: nil)
        return true
    }

    private func write(_ response: ControlResponse, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, channel: any Channel) async throws {
        let writeTimer = channel.eventLoop.scheduleTask(in: TimeAmount(limits.writeTimeout)) { channel.close(promise: nil) }
        defer { writeTimer.cancel() }
        try await outbound.write(ByteBuffer(bytes: ControlWire.encodeResponse(response)))
    }

    /// Decodes the request, asks the handler and passes the response to `reply` as soon as it is
    /// known or the handler deadline passes. A handler that ignores cancellation keeps only this
    /// connection's task alive; the client already has its answer.
    private func answer(_ line: ByteBuffer, reply: (ControlResponse) async throws -> Void) async throws {
        let command: ControlCommand
        do {
            command = try ControlWire.decodeRequest(line.readableBytesView)
        } catch {
            try await reply(.failed(error.description))
            return
        }
        let handler = handler
        let timeout = max(limits.handlerTimeout, command.answerTime)
        try await withThrowingTaskGroup(of: ControlResponse?.self) { group in
            group.addTask { await handler.handle(command) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            try await reply(response(to: command, first, timeout: timeout))
        }
    }

    private func response(to command: ControlCommand, _ response: ControlResponse?, timeout: Duration) -> ControlResponse {
        guard let response else {
            logger.warning("control command \(command.verb) got no answer within \(timeout)")
            return .failed("\(command.verb): the service did not answer within \(timeout)")
        }
        if case .failed(let error) = response {
            logger.info("control command \(command.verb) failed: \(error)")
        } else {
            logger.debug("control command \(command.verb)")
        }
        return response
    }
}

/// Marks a channel's socket close-on-exec (NIO does not); call on the channel's event loop.
private func closeOnExec(_ channel: any Channel) throws {
    let code =
        try channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
            ControlSocketCalls.setCloseOnExec($0)
        } ?? 0
    if code != 0 { throw IOError(errnoCode: code, reason: "fcntl(F_SETFD, FD_CLOEXEC)") }
}

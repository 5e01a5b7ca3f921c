import Basics
import Logging
import Realtime

/// The Realtime link: connecting, reading its events, sending frames, closing; and the one place that
/// decides about retrying, from the typed `RealtimeDisconnect` the transport reports. Connect attempts
/// and session readers run as children of the runner (`spawn`), never as free-standing tasks.
extension RunnerLoop {
    /// Starts `work` in the runner's task group; `run()` returns only after it has finished.
    func spawn(_ work: @escaping @Sendable () async -> Void) {
        if case .terminated = runner.childContinuation.yield(RunnerChild(work: work)) {
            logger.debug("runner stopped; dropped a background job")
        }
    }

    func startConnect() {
        let (abandoned, abandon) = AsyncStream.makeStream(of: Never.self)
        let attempt = connection.beginConnect(abandon: abandon)
        let transport = runner.transport
        let continuation = continuation
        spawn {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do throws(RealtimeDisconnect) {
                        let opened = try await transport.connect()
                        if case .terminated = continuation.yield(.linkOpened(generation: attempt, link: opened)) {
                            opened.close()  // the runner already stopped
                            _ = await opened.run { _ in }
                        }
                    } catch {
                        continuation.yield(.connectFailed(generation: attempt, error: error))
                    }
                }
                group.addTask {
                    for await _ in abandoned {}  // until the loop abandons the attempt
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    func linkOpened(_ opened: Int, _ newLink: any RealtimeLink) async {
        guard connection.opened(opened, newLink) else {
            closeInBackground(newLink)
            return
        }
        let continuation = continuation
        spawn {
            let end = await newLink.run { event in continuation.yield(.link(generation: opened, event: event)) }
            continuation.yield(.linkEnded(generation: opened, end: end))
        }
        logger.debug("Realtime: connected")
        await feed(.realtimeConnected)
    }

    func linkEvent(_ event: RealtimeLinkEvent) async {
        switch event {
        case .server(let serverEvent):
            switch serverEvent {
            case .sessionCreated: connection.sessionCreated()
            case .unknown(let type):
                connection.noteUnknownEvent()
                logger.debug("Realtime: ignored unknown event \(type)")
            default: break
            }
            await feed(.server(serverEvent))
            if case .error(let error) = serverEvent, connection.isOpen,
                let end = RealtimeDisconnect.classify(error, context: runner.transport.context), end.isFatal
            {
                // The socket is already closing itself on this error; the close handshake can take long on a busy
                // box, and meanwhile `connecting` may time out and hide the real reason. It is fatal now.
                await linkClosed(end)
            }
        case .undecodable(let detail):
            let malformed = connection.noteMalformedEvent()
            logger.warning("Realtime: ignored an unreadable server frame (\(detail)); \(malformed) so far")
        }
    }

    /// The server or the network ended the open session (its reader finishes the close by itself).
    func linkClosed(_ end: RealtimeDisconnect) async {
        connection.takeLink()?.close()
        await connectionLost(end, wasOpen: true)
    }

    /// Whether a failed connect is worth another attempt while the conversation still waits in
    /// `connecting`: not when retrying cannot help (fatal), and not when the API is unreachable (the
    /// network is down: say so now; the next tap tries again).
    static func retries(_ end: RealtimeDisconnect) -> Bool {
        switch end.kind {
        case .fatal, .closedByClient: false
        case .expired: true
        case .transient: !end.isUnreachable
        }
    }

    /// Tells the engine, then retries a failed connect while it still waits in `connecting` (the engine's
    /// connect timeout bounds the whole).
    func connectionLost(_ end: RealtimeDisconnect, wasOpen: Bool) async {
        guard end.kind != .closedByClient else { return }
        let retry = !wasOpen && Self.retries(end)
        if end.isFatal || (!wasOpen && !retry) {
            await feed(.realtimeFailed(end, fatal: true))
        } else if wasOpen {
            await feed(.realtimeDisconnected(end))
        } else {
            await feed(.realtimeFailed(end, fatal: false))
        }
        guard let failed = connection.nextRetry(retryable: retry, engineState: engine.state) else { return }
        let delay = configuration.reconnect.delay(attempt: failed, unit: Double.random(in: 0...1), notBefore: end.retryAfter)
        logger.debug("Realtime: reconnecting in \(delay.wholeMilliseconds) ms (attempt \(failed + 1))")
        let attempt = connection.generation
        let clock = runner.clock
        let continuation = continuation
        connection.scheduled(
            Task {
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return
                }
                continuation.yield(.retryConnect(generation: attempt))
            })
    }

    /// Stops wanting a session: abandons a connect in progress and closes the open link.
    func disconnect() async {
        if let open = connection.drop() {
            logger.info("Realtime: closing the session")
            open.close()
        }
    }

    /// Closes a link nobody reads (a late or unwanted one): its close handshake runs in `run`.
    func closeInBackground(_ closing: any RealtimeLink) {
        spawn {
            closing.close()
            _ = await closing.run { _ in }
        }
    }

    /// Sends one text frame on the open link; without one the frame is dropped (the engine only sends
    /// while a session is up, so this happens only around a drop).
    func send(_ text: String) async {
        guard let link = connection.link else {
            logger.debug("Realtime: no session; dropped a client event")
            return
        }
        do {
            try await link.send(text)
        } catch {
            logger.warning("\(error)")
        }
    }
}

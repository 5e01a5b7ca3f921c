import Logging
import Realtime

/// The Realtime link: connecting, reading its events, sending frames, closing; and the one place that
/// decides about retrying, from the typed `RealtimeDisconnect` the transport reports.
extension RunnerLoop {
    func startConnect() {
        generation += 1
        let attempt = generation
        let transport = runner.transport
        let continuation = continuation
        connectTask = Task {
            do throws(RealtimeDisconnect) {
                let opened = try await transport.connect()
                if case .terminated = continuation.yield(.linkOpened(generation: attempt, link: opened)) {
                    opened.close()  // the runner already stopped
                    _ = await opened.run { _ in }
                    return nil
                }
                return opened
            } catch {
                continuation.yield(.connectFailed(generation: attempt, error: error))
                return nil
            }
        }
    }

    func linkOpened(_ opened: Int, _ newLink: any RealtimeLink) async {
        guard opened == generation, wantConnection, link == nil else {
            closeInBackground(newLink)
            return
        }
        connectTask = nil
        link = newLink
        lastServerErrorCode = nil
        let continuation = continuation
        // The session is read in this runner-owned task; shutdown waits for it.
        readerTask = Task {
            let end = await newLink.run { event in continuation.yield(.link(generation: opened, event: event)) }
            continuation.yield(.linkEnded(generation: opened, end: end))
        }
        logger.info("Realtime: connected")
        await feed(.realtimeConnected)
    }

    func linkEvent(_ event: RealtimeLinkEvent) async {
        switch event {
        case .server(let serverEvent):
            switch serverEvent {
            case .error(let error): lastServerErrorCode = error.code
            case .sessionCreated: connectAttempts = 0
            case .unknown(let type):
                unknownEvents += 1
                logger.debug("Realtime: ignored unknown event \(type)")
            default: break
            }
            await feed(.server(serverEvent))
            if case .error(let error) = serverEvent, let code = error.code, RealtimeDisconnect.fatalErrorCodes.contains(code), link != nil {
                // The socket is already closing itself on this code; the close handshake can take long on a busy
                // box, and meanwhile `connecting` may time out and hide the real reason. It is fatal now.
                await linkClosed(RealtimeDisconnect.classify(closeCode: nil, lastErrorCode: code, closedByUs: false))
            }
        case .undecodable(let detail):
            malformedEvents += 1
            logger.warning("Realtime: ignored an unreadable server frame (\(detail)); \(malformedEvents) so far")
        }
    }

    /// The server or the network ended the open session.
    func linkClosed(_ end: RealtimeDisconnect) async {
        if let closed = link {
            link = nil
            if let reader = readerTask { trackReader(reader) }
            readerTask = nil
            closed.close()
        }
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
            await feed(.realtimeFailed(reason: end.description, fatal: true))
        } else if wasOpen {
            await feed(.realtimeDisconnected(reason: end.description))
        } else {
            await feed(.realtimeFailed(reason: end.description, fatal: false))
        }
        guard retry, wantConnection, engine.state == .connecting, link == nil, connectTask == nil, retryTask == nil else { return }
        connectAttempts += 1
        let delay = configuration.reconnectDelay(attempt: connectAttempts, unit: Double.random(in: 0..<1))
        logger.debug("Realtime: reconnecting in \(delay.wholeMilliseconds) ms (attempt \(connectAttempts + 1))")
        let attempt = generation
        let clock = runner.clock
        let continuation = continuation
        retryTask = Task {
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            continuation.yield(.retryConnect(generation: attempt))
        }
    }

    /// Stops wanting a session: abandons a connect in progress and closes the open link.
    func disconnect() async {
        wantConnection = false
        generation += 1
        connectAttempts = 0
        retryTask?.cancel()
        retryTask = nil
        if let pending = connectTask {
            connectTask = nil
            pending.cancel()
            // A link that opens anyway is closed as soon as it arrives.
            track {
                guard let late = await pending.value else { return }
                late.close()
                _ = await late.run { _ in }
            }
        }
        if let open = link {
            link = nil
            logger.info("Realtime: closing the session")
            open.close()
            if let reader = readerTask { trackReader(reader) }
            readerTask = nil
        }
    }

    /// Closes a link nobody reads yet (a late or unwanted one): its close handshake runs in `run`.
    func closeInBackground(_ closing: any RealtimeLink) {
        track {
            closing.close()
            _ = await closing.run { _ in }
        }
    }

    /// The reader of a closing link finishes the close handshake; shutdown waits for it.
    private func trackReader(_ reader: Task<Void, Never>) {
        track { await reader.value }
    }

    /// Runs a close in its own task (the loop does not wait for the server's close handshake); shutdown
    /// waits for the ones still running.
    private func track(_ work: @escaping @Sendable () async -> Void) {
        let owned = token()
        let continuation = continuation
        closingTasks[owned] = Task {
            await work()
            continuation.yield(.closeFinished(token: owned))
        }
    }

    /// Sends one text frame on the open link; without one the frame is dropped (the engine only sends
    /// while a session is up, so this happens only around a drop).
    func send(_ text: String) async {
        guard let link else {
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

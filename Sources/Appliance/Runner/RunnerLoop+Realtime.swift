import Logging
import Realtime

/// The Realtime link: connecting (with retries while the engine is still `connecting`), reading its
/// events, sending frames, closing.
extension RunnerLoop {
    func startConnect() {
        generation += 1
        let attempt = generation
        let transport = runner.transport
        let continuation = continuation
        connectTask = Task {
            do throws(RealtimeConnectError) {
                let opened = try await transport.connect()
                continuation.yield(.linkOpened(generation: attempt, link: opened))
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
        readerTask = Task {
            for await event in newLink.events {
                continuation.yield(.link(generation: opened, event: event))
            }
            continuation.yield(.linkEnded(generation: opened))
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
                await linkClosed(reason: error.description, fatal: true)
            }
        case .undecodable(let detail):
            malformedEvents += 1
            logger.warning("Realtime: ignored an unreadable server frame (\(detail)); \(malformedEvents) so far")
        case .closed(let reason, let fatal):
            await linkClosed(reason: reason, fatal: fatal)
        }
    }

    /// The server or the network closed the session.
    func linkClosed(reason: String, fatal: Bool) async {
        let fatal = fatal || lastServerErrorCode.map(RealtimeFatalErrors.codes.contains) == true
        readerTask?.cancel()
        readerTask = nil
        if let closed = link {
            link = nil
            closeInBackground(closed)
        }
        await connectionLost(reason: reason, fatal: fatal, wasOpen: true)
    }

    /// Tells the engine, then retries while it still waits in `connecting` (it decides when to give up).
    func connectionLost(reason: String, fatal: Bool, wasOpen: Bool) async {
        if fatal {
            await feed(.realtimeFailed(reason: reason, fatal: true))
        } else if wasOpen {
            await feed(.realtimeDisconnected(reason: reason))
        } else {
            await feed(.realtimeFailed(reason: reason, fatal: false))
        }
        guard wantConnection, !fatal, engine.state == .connecting, link == nil, connectTask == nil, retryTask == nil else { return }
        connectAttempts += 1
        let delay = configuration.reconnectDelay(attempt: connectAttempts, unit: Double.random(in: 0..<1))
        logger.info("Realtime: reconnecting in \(delay.wholeMilliseconds) ms (attempt \(connectAttempts + 1))")
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
        readerTask?.cancel()
        readerTask = nil
        if let pending = connectTask {
            connectTask = nil
            pending.cancel()
            // A link that opens anyway is closed as soon as it arrives.
            track { await pending.value?.close() }
        }
        if let open = link {
            link = nil
            logger.info("Realtime: closing the session")
            closeInBackground(open)
        }
    }

    func closeInBackground(_ closing: any RealtimeLink) {
        track { await closing.close() }
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

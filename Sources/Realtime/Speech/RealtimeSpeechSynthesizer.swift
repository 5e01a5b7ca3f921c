import Synchronization

/// Text to the assistant's voice as PCM, apart from the conversation: one short-lived Realtime connection
/// per call reads the text out of band and returns its audio instead of playing it (an announcement for a
/// Snapcast group is played by every box at once, from the snapserver).
public enum RealtimeSpeechSynthesizer {
    /// The text read aloud by `configuration.voice`, as 24 kHz mono PCM16. Everything (connect, session,
    /// reading, close) ends within `timeout`; the connection is closed however it ends.
    public static func speak(
        _ text: String, configuration: RealtimeSpeechConfiguration, timeout: Duration
    ) async throws(RealtimeSpeechError) -> [Int16] {
        let request = try RealtimeSpeechRequest(text: text, configuration: configuration)
        var dial = configuration.connection
        // The dial does not heed cancellation; bounding it bounds the whole call.
        dial.connectTimeout = min(dial.connectTimeout, timeout)
        let connection = dial
        let collector = RealtimeSpeechCollector(request: request, maxSamples: configuration.maxSamples, context: connection.context)
        let result = await withTaskGroup(of: Result<[Int16], RealtimeSpeechError>?.self) { group in
            group.addTask { await exchange(collector, connection: connection) }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return nil }
                return .failure(.timedOut(after: timeout))
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return .failure(.cancelled)
        }
        return try result.get()
    }

    /// One connection: the session, the reading, the close. Cancelling the task drops the connection.
    private static func exchange(
        _ collector: RealtimeSpeechCollector, connection configuration: RealtimeConnectionConfiguration
    ) async -> Result<[Int16], RealtimeSpeechError> {
        let connection: RealtimeConnection
        do {
            connection = try await RealtimeConnection.open(configuration: configuration)
        } catch {
            return .failure(RealtimeSpeechError(error, whileOpening: true))
        }
        let state = Mutex(collector)
        connection.send(text: collector.sessionUpdate)
        let disconnect = await connection.run { output in
            switch state.withLock({ $0.handle(output) }) {
            case .wait: break
            case .send(let text): connection.send(text: text)
            case .finish: connection.close()
            }
        }
        return state.withLock { $0.outcome(after: disconnect) }
    }
}

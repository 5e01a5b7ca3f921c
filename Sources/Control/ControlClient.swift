/// Sends one command to a running service and waits for its answer (blocking; for `jarvis-voice ctl`).
public enum ControlClient {
    public static func send(
        _ command: ControlCommand, to path: String, timeout: Duration = .seconds(15)
    ) throws(ControlClientError) -> ControlWire.Reply {
        let deadline = ContinuousClock.now + timeout
        let connection = try ControlSocketCalls.ClientConnection(path: path)
        try connection.send(ControlWire.encodeRequest(command), deadline: deadline)
        let line = try connection.readLine(maxBytes: ControlWire.maxLineBytes, deadline: deadline)
        do {
            return try ControlWire.decodeReply(line)
        } catch {
            throw .protocolError(error.description)
        }
    }
}

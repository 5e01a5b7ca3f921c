/// What `SnapcastSession` asks the connection and the player to do, in order.
public enum SnapcastEffect: Sendable, Hashable {
    /// Write these bytes to the server.
    case send([UInt8])
    /// Close the connection now (if open) and connect again after this delay; then call `connected` or
    /// `connectFailed`.
    case reconnect(after: Duration)
    /// The server's buffer, latency, volume or mute changed (always once per connection).
    case settingsChanged(SnapcastServerSettings)
    /// A new stream format: tear the decoder down and start it with this header.
    case codecHeader(codec: String, payload: [UInt8])
    /// Encoded audio whose first sample was read at `serverTimestampNanoseconds` on the server's clock.
    case chunk(serverTimestampNanoseconds: Int64, payload: [UInt8])
    /// Why the connection is being dropped (followed by `reconnect`).
    case protocolError(SnapcastProtocolError)
    /// A 0.32+ server refused something (e.g. authentication); it closes the connection itself.
    case serverError(code: UInt32, message: String, details: String)
}

/// A decoded server-to-client message's payload.
public enum SnapcastMessage: Sendable, Hashable {
    /// The stream's codec (`pcm`, `flac`, `ogg`, `opus`, `null`) and its header bytes (a 44-byte RIFF for
    /// pcm); one can arrive at any time, and then the decoder starts over.
    case codecHeader(codec: String, payload: [UInt8])
    /// Encoded audio whose first sample was read at `timestampNanoseconds` on the server's monotonic clock.
    case wireChunk(timestampNanoseconds: Int64, payload: [UInt8])
    case serverSettings(SnapcastServerSettings)
    /// A Time reply: the server's receive time minus the request's `sent` (client to server, in ns).
    case time(latencyNanoseconds: Int64)
    /// A 0.32+ server's refusal (e.g. authentication).
    case error(code: UInt32, message: String, details: String)
    /// A type this client does not read (unknown, or one only a server reads): skipped by its size.
    case skipped(typeCode: UInt16)
}

/// One whole message off the wire: its header (with `receivedNanoseconds` set to when it was read) and payload.
public struct SnapcastFrame: Sendable, Hashable {
    public var header: SnapcastHeader
    public var message: SnapcastMessage

    public init(header: SnapcastHeader, message: SnapcastMessage) {
        self.header = header
        self.message = message
    }
}

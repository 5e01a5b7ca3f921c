/// Splits the control port's byte stream into lines, holding at most `maximumLineLength` bytes of a
/// line that has not ended (a server that never sends a newline cannot grow it without bound).
public struct SnapcastControlLineBuffer: Sendable {
    /// A `Server.GetStatus` of a big house is some tens of kB; 1 MB leaves room and still bounds memory.
    public static let maximumLineLength = 1_000_000
    private var pending: [UInt8] = []

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) { pending.append(contentsOf: bytes) }

    /// The next whole line (without `\n` or `\r\n`), or nil until one has arrived.
    public mutating func next() throws(SnapcastControlError) -> String? {
        guard let end = pending.firstIndex(of: UInt8(ascii: "\n")) else {
            if pending.count > Self.maximumLineLength { throw .lineTooLong(Self.maximumLineLength) }
            return nil
        }
        guard end <= Self.maximumLineLength else { throw .lineTooLong(Self.maximumLineLength) }
        var line = pending[..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        let text = String(decoding: line, as: UTF8.self)
        pending.removeSubrange(...end)
        return text
    }
}

import Basics

/// The client-to-server messages, whole (header and payload), with `sent` = the caller's monotonic now
/// in ns: the server's Time reply measures from it.
public enum SnapcastMessageEncoder {
    public static func hello(_ hello: SnapcastHello, id: UInt16, now: Int64) -> [UInt8] {
        message(.hello, id: id, now: now) { $0.appendSized(Array(hello.jsonText.utf8)) }
    }

    /// A Time request: its payload is one zero `tv`, which the server's reply fills with the
    /// client-to-server latency.
    public static func timeRequest(id: UInt16, now: Int64) -> [UInt8] {
        message(.time, id: id, now: now) { $0.appendTimeval(nanoseconds: 0) }
    }

    /// The local volume changed (`{"volume","muted"}`): the server stores it and tells control clients.
    public static func clientInfo(volume: Int, muted: Bool, id: UInt16, now: Int64) -> [UInt8] {
        let json = JSONValue.object(["volume": .number(Double(min(max(volume, 0), 100))), "muted": .bool(muted)])
        return message(.clientInfo, id: id, now: now) { $0.appendSized(Array(json.jsonText.utf8)) }
    }

    private static func message(_ type: SnapcastMessageType, id: UInt16, now: Int64, payload write: (inout [UInt8]) -> Void) -> [UInt8] {
        var payload: [UInt8] = []
        write(&payload)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(SnapcastHeader.byteCount + payload.count)
        SnapcastHeader(type: type, id: id, sentNanoseconds: now, size: UInt32(clamping: payload.count)).write(to: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }
}

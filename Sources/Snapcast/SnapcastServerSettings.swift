import Basics

/// What the server wants this client to play like (`server_settings.hpp`): sent in answer to the Hello and
/// again after every change made over the control API.
public struct SnapcastServerSettings: Sendable, Hashable {
    /// The end-to-end buffer: a chunk stamped `ts` plays at `ts + bufferMs - latency` on the server's clock.
    public var bufferMs: Int
    /// This client's extra delay in ms (`Client.SetLatency`), taken off the buffer.
    public var latency: Int
    /// Client muted or its group muted.
    public var muted: Bool
    /// 0...100.
    public var volume: Int

    public init(bufferMs: Int, latency: Int, muted: Bool, volume: Int) {
        self.bufferMs = bufferMs
        self.latency = latency
        self.muted = muted
        self.volume = volume
    }

    /// Reads `{"bufferMs":int,"latency":int,"muted":bool,"volume":0..100}`; other keys are ignored.
    public init(jsonText: String) throws(SnapcastProtocolError) {
        guard let json = JSONValue.parse(jsonText), case .object = json else { throw .settingsNotJSON }
        func integer(_ key: String, in range: ClosedRange<Int> = -1_000_000...1_000_000) throws(SnapcastProtocolError) -> Int {
            guard let value = json[key] else { throw .settingsKeyMissing(key) }
            guard let number = value.numberValue, number.rounded() == number, Double(range.lowerBound) <= number,
                number <= Double(range.upperBound)
            else { throw .settingsKeyMistyped(key) }
            return Int(number)
        }
        guard let mutedValue = json["muted"] else { throw .settingsKeyMissing("muted") }
        guard case .bool(let muted) = mutedValue else { throw .settingsKeyMistyped("muted") }
        self.init(bufferMs: try integer("bufferMs"), latency: try integer("latency"), muted: muted, volume: try integer("volume", in: 0...100))
    }

    /// The same JSON a server sends (for tests and stand-ins).
    public var jsonText: String {
        JSONValue.object([
            "bufferMs": .number(Double(bufferMs)), "latency": .number(Double(latency)), "muted": .bool(muted),
            "volume": .number(Double(volume))
        ]).jsonText
    }
}

/// What `ctl timer add` and the owner type for a duration: `90s`, `10m`, `1h30m`, `1h 5m 10s`, or a bare
/// number of seconds. Bounded to a day; nil for anything else.
public enum TimerDuration {
    public static let maximumSeconds = 24 * 3600

    public static func seconds(_ text: String) -> Int? {
        let bytes = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
        if bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return Int(String(decoding: bytes, as: UTF8.self)).flatMap { (1...maximumSeconds).contains($0) ? $0 : nil }
        }
        var total = 0
        var number: Int?
        var lastUnit = Int.max
        for byte in bytes {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                number = (number ?? 0) * 10 + Int(byte - UInt8(ascii: "0"))
                guard number! <= maximumSeconds else { return nil }
                continue
            }
            let unit: Int
            switch byte {
            case UInt8(ascii: "h"): unit = 3600
            case UInt8(ascii: "m"): unit = 60
            case UInt8(ascii: "s"): unit = 1
            default: return nil
            }
            guard let value = number, unit < lastUnit else { return nil }  // h, then m, then s, each once
            total += value * unit
            guard total <= maximumSeconds else { return nil }
            lastUnit = unit
            number = nil
        }
        guard number == nil, total > 0 else { return nil }
        return total
    }

    /// `9:58`, `1:02:03`: what is left, as a kitchen timer shows it.
    public static func clock(_ seconds: Int) -> String {
        let s = max(0, seconds)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return s >= 3600 ? "\(s / 3600):\(two(s % 3600 / 60)):\(two(s % 60))" : "\(s / 60):\(two(s % 60))"
    }
}

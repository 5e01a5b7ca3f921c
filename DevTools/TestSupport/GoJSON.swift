/// A JSON value serialized the way Go's encoding/json does it for maps: keys sorted, no spaces,
/// `<`, `>`, `&`, U+2028 and U+2029 escaped as \uXXXX. Lets stand-ins emit term-llm's exact bytes.
public indirect enum GoJSON: Sendable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([GoJSON])
    case object([String: GoJSON])
    /// An object whose keys keep this order (Go structs serialize in field order).
    case ordered([(String, GoJSON)])

    public static func == (lhs: GoJSON, rhs: GoJSON) -> Bool { lhs.serialized == rhs.serialized }

    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .string(let text): GoJSON.writeString(text, to: &out)
        case .int(let number): out += String(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            GoJSON.ordered(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).write(to: &out)
        case .ordered(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                GoJSON.writeString(member.0, to: &out)
                out += ":"
                member.1.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                out += "\\u" + hex4(scalar.value)
            default:
                if scalar.value < 0x20 { out += "\\u" + hex4(scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        out += "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// One dispatched server-sent event.
public struct SSEEvent: Sendable, Equatable {
    /// The `event:` field, nil when absent (the default "message").
    public var type: String?
    /// `data:` lines joined with "\n".
    public var data: String
    public var id: String?

    public init(type: String?, data: String, id: String?) {
        self.type = type
        self.data = data
        self.id = id
    }
}

public enum SSEItem: Sendable, Equatable {
    case event(SSEEvent)
    /// A comment line such as `: ping` (text after the colon, leading space dropped).
    case comment(String)
}

/// Incremental text/event-stream parser per the WHATWG rules, on bytes: a UTF-8 byte order mark at the
/// start of the stream is skipped; CR, LF or CRLF end lines (also split across chunks); `:` starts a
/// comment; one optional space after the field colon; `id` values containing NUL are ignored; a blank
/// line dispatches (nothing when no `data` came). Field values are UTF-8 with replacement characters.
/// Feed bytes as they arrive.
public struct SSEParser: Sendable {
    /// A longer line is cut at this length (the rest of it ignored), so a peer cannot grow memory
    /// without bound; a real term-llm event is a few KiB.
    public static let maxLineBytes = 1 << 20

    private var line: [UInt8] = []
    private var skipLeadingLF = false
    private var atStreamStart = true
    private var bomBytesSeen = 0
    private var data: [String] = []
    private var hasData = false
    private var eventType: String?
    private var lastID: String?
    /// The server's last valid `retry:` value (milliseconds, ASCII digits only), for a caller that
    /// reconnects by itself.
    public private(set) var retryMilliseconds: Int?

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SSEItem] {
        var items: [SSEItem] = []
        for byte in bytes {
            if atStreamStart {
                // EF BB BF at the very start is dropped, even when split across chunks.
                let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                if byte == bom[bomBytesSeen] {
                    bomBytesSeen += 1
                    if bomBytesSeen == 3 { atStreamStart = false }
                    continue
                }
                atStreamStart = false
                if bomBytesSeen > 0 {
                    let partial = Array(bom.prefix(bomBytesSeen))
                    bomBytesSeen = 0
                    for held in partial { consume(held, into: &items) }
                }
            }
            consume(byte, into: &items)
        }
        return items
    }

    private mutating func consume(_ byte: UInt8, into items: inout [SSEItem]) {
        if skipLeadingLF {
            skipLeadingLF = false
            if byte == 0x0A { return }
        }
        if byte == 0x0A || byte == 0x0D {
            skipLeadingLF = byte == 0x0D
            processLine(into: &items)
        } else if line.count < Self.maxLineBytes {
            line.append(byte)
        }
    }

    /// End of stream: a final unterminated line and a pending event are delivered rather than dropped
    /// (a browser's EventSource drops them; term-llm's last chunk may lack its blank line).
    public mutating func finish() -> [SSEItem] {
        var items: [SSEItem] = []
        if !line.isEmpty { processLine(into: &items) }
        if hasData { processLine(into: &items) }
        return items
    }

    private mutating func processLine(into items: inout [SSEItem]) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            if hasData {
                items.append(.event(SSEEvent(type: eventType, data: data.joined(separator: "\n"), id: lastID)))
            }
            data.removeAll()
            hasData = false
            eventType = nil
            return
        }
        let colon = UInt8(ascii: ":")
        if line[0] == colon {
            var start = 1
            if start < line.count, line[start] == 0x20 { start += 1 }
            items.append(.comment(String(decoding: line[start...], as: UTF8.self)))
            return
        }
        let fieldEnd = line.firstIndex(of: colon) ?? line.endIndex
        var valueStart = min(line.endIndex, fieldEnd + 1)
        if valueStart < line.endIndex, line[valueStart] == 0x20 { valueStart += 1 }
        let field = line[..<fieldEnd]
        let value = line[valueStart...]
        switch String(decoding: field, as: UTF8.self) {
        case "data":
            data.append(String(decoding: value, as: UTF8.self))
            hasData = true
        case "event":
            eventType = value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastID = String(decoding: value, as: UTF8.self) }
        case "retry":
            // Digits only; more than 9 digits (over 11 days) is treated as bogus rather than overflowing.
            if !value.isEmpty, value.count <= 9, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                retryMilliseconds = value.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            }
        default:
            break  // unknown fields
        }
    }
}

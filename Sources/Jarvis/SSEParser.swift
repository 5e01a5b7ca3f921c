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

/// Incremental text/event-stream parser (WHATWG rules: CR, LF or CRLF line ends, `:` comments,
/// one optional space after the field colon, blank line dispatches). Feed bytes as they arrive.
public struct SSEParser: Sendable {
    private var line: [UInt8] = []
    private var skipLeadingLF = false
    private var data: [String] = []
    private var hasData = false
    private var eventType: String?
    private var lastID: String?

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SSEItem] {
        var items: [SSEItem] = []
        for byte in bytes {
            if skipLeadingLF {
                skipLeadingLF = false
                if byte == 0x0A { continue }
            }
            if byte == 0x0A || byte == 0x0D {
                skipLeadingLF = byte == 0x0D
                processLine(into: &items)
            } else {
                line.append(byte)
            }
        }
        return items
    }

    /// End of stream: a final unterminated line and a pending event are delivered rather than dropped.
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
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix(":") {
            var comment = text.dropFirst()
            if comment.hasPrefix(" ") { comment = comment.dropFirst() }
            items.append(.comment(String(comment)))
            return
        }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "data":
            data.append(String(value))
            hasData = true
        case "event": eventType = String(value)
        case "id": lastID = String(value)
        default: break  // retry and unknown fields
        }
    }
}

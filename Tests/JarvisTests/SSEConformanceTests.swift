import Jarvis
import Testing

/// The web-platform-tests `eventsource/format-*` cases, ported as byte streams: each stream is what the
/// wpt server (`resources/message.py`: message + newline (default "\n\n") + "\n") sends, and the
/// expectation is what the test asserts about the dispatched events. HTTP-level cases (MIME type,
/// reconnection timing) are out of scope; `retry` is checked as the parsed value instead.
@Suite struct SSEConformanceTests {
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var stream: [UInt8]
        var events: [SSEEvent]
        var retry: Int? = nil
        var description: String { name }
    }

    static func message(_ text: String, newline: String = "\n\n") -> [UInt8] {
        Array((text + newline + "\n").utf8)
    }

    static func event(_ data: String, type: String? = nil, id: String? = nil) -> SSEEvent {
        SSEEvent(type: type, data: data, id: id)
    }

    static let long = String(repeating: "x", count: 2 * 1_024)

    static let cases: [Case] = [
        Case(name: "format-bom", stream: message("\u{FEFF}data:1\n\n\u{FEFF}data:2\n\ndata:3"), events: [event("1"), event("3")]),
        Case(name: "format-bom-2", stream: message("\u{FEFF}\u{FEFF}data:1\n\ndata:2\n\ndata:3"), events: [event("2"), event("3")]),
        Case(
            name: "format-comments",
            stream: message("data:1\r:\0\n:\r\ndata:2\n:\(long)\rdata:3\n:data:fail\r:\(long)\ndata:4\n", newline: ""),
            events: [event("1\n2\n3\n4")]),
        Case(
            name: "format-data-before-final-empty-line",
            stream: message("retry:1000\ndata:test1\n\nid:test\ndata:test2", newline: ""), events: [event("test1")], retry: 1_000),
        Case(name: "format-field-data", stream: message("data:\n\ndata\ndata\n\ndata:test"), events: [event(""), event("\n"), event("test")]),
        Case(name: "format-field-event-empty", stream: message("event: \ndata:data"), events: [event("data")]),
        Case(name: "format-field-event", stream: message("event:test\ndata:x\n\ndata:x"), events: [event("x", type: "test"), event("x")]),
        Case(name: "format-field-id", stream: message("id: …\ndata: hello"), events: [event("hello", id: "…")]),
        Case(
            name: "format-field-id-2", stream: message("id: …\ndata: hello\n\ndata: …"),
            events: [event("hello", id: "…"), event("…", id: "…")]),
        Case(name: "format-field-id-3", stream: message("id:1\ndata:a\n\nid\ndata:b"), events: [event("a", id: "1"), event("b", id: "")]),
        Case(
            name: "format-field-id-null", stream: message("id:1\ndata:a\n\nid:\0\0\ndata:hello"),
            events: [event("a", id: "1"), event("hello", id: "1")]),
        Case(
            name: "format-field-parsing",
            stream: message("data:\0\ndata:  2\rData:1\ndata\0:2\ndata:1\r\0data:4\nda-ta:3\rdata_5\ndata:3\rdata:\r\n data:32\ndata:4"),
            events: [event("\0\n 2\n1\n3\n\n4")]),
        Case(name: "format-field-retry", stream: message("retry:03000\ndata:x"), events: [event("x")], retry: 3_000),
        Case(name: "format-field-retry-bogus", stream: message("retry:2000\nretry:1000x\ndata:x"), events: [event("x")], retry: 2_000),
        Case(name: "format-field-retry-empty", stream: message("retry\ndata:test"), events: [event("test")]),
        Case(
            name: "format-field-unknown",
            stream: message("data:test\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:test"),
            events: [event("test\n\ntest")]),
        Case(name: "format-leading-space", stream: message("data:\ttest\rdata: \ndata:test"), events: [event("\ttest\n\ntest")]),
        Case(name: "format-newlines", stream: message("data:test\r\ndata\ndata:test\r\n\r"), events: [event("test\n\ntest")]),
        Case(name: "format-null-character", stream: message("data:\0\n\n", newline: ""), events: [event("\0")]),
        Case(name: "format-utf-8", stream: message("data:ok\u{2026}"), events: [event("ok…")])
    ]

    static func run(_ item: Case, split: Int? = nil) -> (events: [SSEEvent], retry: Int?) {
        var parser = SSEParser()
        let chunks = split.map { [Array(item.stream[..<$0]), Array(item.stream[$0...])] } ?? [item.stream]
        let events = chunks.flatMap { parser.feed($0) }.compactMap { item -> SSEEvent? in
            if case .event(let event) = item { return event }
            return nil
        }
        return (events, parser.retryMilliseconds)
    }

    @Test(arguments: cases) func wptFormatCase(_ item: Case) {
        let result = Self.run(item)
        #expect(result.events == item.events)
        #expect(result.retry == item.retry)
        // Any chunking gives the same events (the BOM and CRLF are the tricky splits).
        for split in stride(from: 1, to: item.stream.count, by: max(1, item.stream.count / 256)) {
            #expect(Self.run(item, split: split).events == item.events, "split at \(split)")
        }
    }

    @Test func passesEveryPortedCase() {
        let passed = Self.cases.filter {
            let r = Self.run($0)
            return r.events == $0.events && r.retry == $0.retry
        }.count
        #expect(passed == Self.cases.count, "wpt eventsource format cases: \(passed)/\(Self.cases.count)")
    }

    @Test func aLongLineIsCutNotGrownWithoutBound() {
        var parser = SSEParser()
        let line = Array("data:".utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: SSEParser.maxLineBytes + 10) + Array("\n\n".utf8)
        let items = parser.feed(line)
        guard case .event(let event)? = items.first else {
            Issue.record("no event")
            return
        }
        #expect(event.data.utf8.count == SSEParser.maxLineBytes - 5)
    }
}

import Jarvis

/// term-llm's HTTP stream: the SSE framing, then both stream decoders over its events.
enum JarvisFuzzing {
    static func sse(_ bytes: [UInt8]) {
        keep(items(bytes))
    }

    static func termLLM(_ bytes: [UInt8]) {
        for item in items(bytes) {
            keep(ChatCompletionsStreamDecoder.decode(item))
            keep(ResponsesStreamDecoder.decode(item))
        }
    }

    private static func items(_ bytes: [UInt8]) -> [SSEItem] {
        var parser = SSEParser()
        var items: [SSEItem] = []
        for chunk in chunks(bytes) { items += parser.feed(chunk) }
        return items + parser.finish()
    }
}

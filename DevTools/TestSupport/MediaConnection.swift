import NIOCore
import NIOHTTP1

/// Serves one request per connection for `MediaStandIn` (responses say `Connection: close`).
struct MediaConnection {
    typealias Outbound = NIOAsyncChannelOutboundWriter<ByteBuffer>
    let standIn: MediaStandIn
    let connection: NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>

    func serve() async {
        standIn.state.withLock { $0.openConnections += 1 }
        defer { standIn.state.withLock { $0.openConnections -= 1 } }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let received): head = received
                case .body: break
                case .end:
                    guard let head else { return }
                    try await respond(to: head, outbound)
                    return
                }
            }
        }
    }

    private func respond(to head: HTTPRequestHead, _ outbound: Outbound) async throws {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let recorded = MediaStandIn.RecordedRequest(path: head.uri, headers: head.headers.map { ($0.name, $0.value) })
        let route = standIn.state.withLock { state -> MediaStandIn.Route? in
            state.requests.append(recorded)
            return state.routes[path]
        }
        guard let route else {
            try await send(outbound, status: "404 Not Found", headers: [("Content-Type", "text/html")], body: Array("<h1>404</h1>".utf8), limit: nil)
            return
        }
        if let delay = route.firstByteDelay { try await Task.sleep(for: delay) }
        switch route.content {
        case .status(let code):
            try await send(
                outbound, status: "\(code) \(Self.reason(code))", headers: [("Content-Type", "text/plain")],
                body: Array("status \(code)\n".utf8), limit: nil)
        case .redirect(let location):
            try await send(outbound, status: "302 Found", headers: [("Location", location)], body: [], limit: nil)
        case .file(let bytes, let contentType):
            try await sendFile(bytes, contentType: contentType, range: head.headers.first(name: "range"), outbound, limit: route.stopAfterBytes)
        case .live(let stream):
            let wantsMetadata = head.headers.first(name: "icy-metadata")?.trimmingSpaces == "1"
            try await sendLive(stream, metadata: wantsMetadata, outbound, limit: route.stopAfterBytes)
        }
    }

    private func sendFile(_ bytes: [UInt8], contentType: String, range: String?, _ outbound: Outbound, limit: Int?) async throws {
        var headers = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
        guard let range, range.hasPrefix("bytes=") else {
            try await send(outbound, status: "200 OK", headers: headers, body: bytes, limit: limit)
            return
        }
        let spec = range.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let start = Int(spec.first ?? "") ?? 0
        let end = spec.count > 1 ? (Int(spec[1]) ?? bytes.count - 1) : bytes.count - 1
        guard start < bytes.count, start <= end else {
            headers.append(("Content-Range", "bytes */\(bytes.count)"))
            try await send(outbound, status: "416 Range Not Satisfiable", headers: headers, body: [], limit: nil)
            return
        }
        let last = min(end, bytes.count - 1)
        headers.append(("Content-Range", "bytes \(start)-\(last)/\(bytes.count)"))
        try await send(outbound, status: "206 Partial Content", headers: headers, body: Array(bytes[start...last]), limit: limit)
    }

    private func send(_ outbound: Outbound, status: String, headers: [(String, String)], body: [UInt8], limit: Int?) async throws {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var buffer = ByteBuffer(string: text)
        buffer.writeBytes(body.prefix(limit ?? body.count))
        try await outbound.write(buffer)
    }

    private func sendLive(_ stream: MediaStandIn.LiveStream, metadata: Bool, _ outbound: Outbound, limit: Int?) async throws {
        var text = stream.legacyStatusLine ? "ICY 200 OK\r\n" : "HTTP/1.0 200 OK\r\n"
        text += "Content-Type: \(stream.contentType)\r\nicy-name: \(stream.name)\r\nicy-br: \(stream.bytesPerSecond * 8 / 1_000)\r\n"
        text += "Cache-Control: no-cache\r\n"
        if metadata { text += "icy-metaint: \(stream.metaInterval)\r\n" }
        try await outbound.write(ByteBuffer(string: text + "\r\n"))
        guard !stream.audio.isEmpty else { return }
        var generator = LiveGenerator(stream: stream, metadata: metadata)
        var sent = 0
        var budget = stream.burstBytes
        let tick = Duration.milliseconds(50)
        let perTick = max(1, stream.bytesPerSecond / 20)
        var next = ContinuousClock.now
        while !Task.isCancelled {
            var chunk = generator.next(audioBytes: budget)
            if let limit {
                if sent >= limit { return }
                if sent + chunk.count > limit { chunk = Array(chunk.prefix(limit - sent)) }
            }
            try await outbound.write(ByteBuffer(bytes: chunk))
            sent += chunk.count
            next += tick
            try await Task.sleep(until: next, clock: .continuous)
            budget = perTick
        }
    }

    static func reason(_ code: Int) -> String {
        switch code {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// The wire bytes of a live ICY stream: looped audio with a metadata block every `metaInterval` bytes.
struct LiveGenerator {
    let stream: MediaStandIn.LiveStream
    let metadata: Bool
    private var audioPosition = 0
    private var untilMeta: Int
    private var block = 0
    private var lastTitle: String?

    init(stream: MediaStandIn.LiveStream, metadata: Bool) {
        self.stream = stream
        self.metadata = metadata
        untilMeta = stream.metaInterval
    }

    mutating func next(audioBytes count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var remaining = count
        while remaining > 0 {
            let take = metadata ? min(remaining, untilMeta) : remaining
            for _ in 0..<take {
                out.append(stream.audio[audioPosition])
                audioPosition = (audioPosition + 1) % stream.audio.count
            }
            remaining -= take
            guard metadata else { continue }
            untilMeta -= take
            if untilMeta == 0 {
                out += metadataBlock()
                untilMeta = stream.metaInterval
            }
        }
        return out
    }

    private mutating func metadataBlock() -> [UInt8] {
        defer { block += 1 }
        guard !stream.titles.isEmpty else { return [0] }
        let title = stream.titles[(block / max(1, stream.blocksPerTitle)) % stream.titles.count]
        guard title != lastTitle else { return [0] }
        lastTitle = title
        var text = Array("StreamTitle='\(title)';StreamUrl='';".utf8)
        text += [UInt8](repeating: 0, count: (16 - text.count % 16) % 16)
        return [UInt8(text.count / 16)] + text
    }
}

extension String {
    var trimmingSpaces: String {
        var slice = Substring(self)
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return String(slice)
    }
}

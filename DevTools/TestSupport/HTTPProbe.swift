import NIOCore
import NIOPosix

/// What a server answered to one raw HTTP/1.1 request.
public struct HTTPProbeResponse: Sendable {
    public var status: Int
    /// The header lines in order, names as sent.
    public var headers: [(name: String, value: String)]
    public var body: String

    /// The first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One HTTP/1.1 request over raw bytes, for tests that look at a stand-in's answer on the wire without a
/// product client in between: a refused WebSocket upgrade's status, headers and body, or the head of an
/// accepted one (the probe stops at the 101's blank line and closes; no WebSocket is spoken).
public enum HTTPProbe {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Sends `GET path` to 127.0.0.1:`port` and reads the answer: its head, then a `Content-Length` body
    /// or everything until the server closes. A 1xx answer ends at its head.
    public static func get(
        port: Int, path: String, headers: [(String, String)] = [], timeout: Duration = .seconds(10)
    ) async throws -> HTTPProbeResponse {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(timeout))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try CloseOnExec.mark(channel)
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        // A server that never finishes its answer: closing ends the read below.
        let deadline = channel.channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { channel.channel.close(promise: nil) }
        defer { deadline.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            var bytes: [UInt8] = []
            for try await buffer in inbound {
                bytes += buffer.readableBytesView
                if let response = parse(bytes, closed: false) { return response }
            }
            guard let response = parse(bytes, closed: true) else {
                throw Failure(description: "no complete HTTP response from 127.0.0.1:\(port) (\(bytes.count) bytes)")
            }
            return response
        }
    }

    /// A WebSocket upgrade request for the Realtime stand-in's `/v1/realtime`, with `?model=` when `model`
    /// is not nil.
    public static func realtimeUpgrade(port: Int, model: String?, apiKey: String, timeout: Duration = .seconds(10)) async throws -> HTTPProbeResponse
    {
        try await get(
            port: port, path: "/v1/realtime" + (model.map { "?model=\($0)" } ?? ""),
            headers: [
                ("Authorization", "Bearer \(apiKey)"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13")
            ],
            timeout: timeout)
    }

    /// The response in `bytes`, or nil while it is incomplete (`closed`: nothing more will come).
    static func parse(_ bytes: [UInt8], closed: Bool) -> HTTPProbeResponse? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == separator }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var response = HTTPProbeResponse(status: status, headers: headers, body: "")
        let body = bytes[(end + 4)...]
        if (100..<200).contains(status) { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            guard body.count >= length else { return nil }
            response.body = String(decoding: body.prefix(length), as: UTF8.self)
            return response
        }
        guard closed else { return nil }
        response.body = String(decoding: body, as: UTF8.self)
        return response
    }
}

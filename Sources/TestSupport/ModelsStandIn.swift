import NIOCore
import NIOHTTP1
import NIOPosix

/// A loopback stand-in for the OpenAI REST endpoint the doctor probes: `GET /v1/models` answers
/// 200 for `Authorization: Bearer <key>`, 401 (OpenAI's invalid_api_key body) otherwise.
public final class ModelsStandIn: Sendable {
    let channel: any Channel
    public let port: Int

    public static func start(key: String) async throws -> ModelsStandIn {
        let channel = try await StandInListener.listen(port: 0) { channel in
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(Handler(key: key))
        }
        return ModelsStandIn(channel: channel)
    }

    private init(channel: any Channel) {
        self.channel = channel
        port = channel.localAddress?.port ?? 0
    }

    /// The Realtime URL whose derived models URL is this server.
    public var realtimeURL: String { "ws://127.0.0.1:\(port)/v1/realtime" }

    public func stop() async { try? await channel.close() }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let key: String
        init(key: String) { self.key = key }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            let status: HTTPResponseStatus
            let body: String
            if head.uri != "/v1/models" {
                status = .notFound
                body = #"{"error":{"message":"not found"}}"#
            } else if head.headers.first(name: "authorization") == "Bearer \(key)" {
                status = .ok
                body = #"{"object":"list","data":[{"id":"gpt-realtime","object":"model"}]}"#
            } else {
                status = .unauthorized
                body = #"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#
            }
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: "application/json")
            headers.add(name: "content-length", value: "\(body.utf8.count)")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

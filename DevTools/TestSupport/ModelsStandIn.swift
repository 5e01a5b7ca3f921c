import NIOCore
import NIOHTTP1
import NIOPosix

/// A loopback stand-in for the OpenAI models endpoints: `GET /v1/models` lists the available models and
/// `GET /v1/models/<id>` retrieves one (404 `model_not_found` when it is not available), for
/// `Authorization: Bearer <key>`; 401 (OpenAI's invalid_api_key body) otherwise.
public final class ModelsStandIn: Sendable {
    let channel: any Channel
    public let port: Int

    /// `shutdownDates`: model id -> "YYYY-MM-DD", announced as the model's `shutdown_date`.
    public static func start(
        key: String, available: [String] = RealtimeStandInScript.currentModels, shutdownDates: [String: String] = [:]
    ) async throws -> ModelsStandIn {
        let models = Models(available: available, shutdownDates: shutdownDates)
        let channel = try await StandInListener.listen(port: 0) { channel in
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(Handler(key: key, models: models))
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

    private struct Models: Sendable {
        var available: [String]
        var shutdownDates: [String: String]

        /// The API's model object, `shutdown_date` last and only when one is announced.
        func object(_ id: String) -> GoJSON {
            var fields: [(String, GoJSON)] = [
                ("id", .string(id)), ("object", .string("model")), ("created", .int(1_770_000_000)), ("owned_by", .string("system"))
            ]
            if let date = shutdownDates[id] { fields.append(("shutdown_date", .string(date))) }
            return .ordered(fields)
        }

        /// Status and body for an authorized request to `path`.
        func answer(_ path: Substring) -> (HTTPResponseStatus, String) {
            if path == "/v1/models" {
                return (.ok, GoJSON.ordered([("object", .string("list")), ("data", .array(available.map(object)))]).serialized)
            }
            guard path.hasPrefix("/v1/models/") else { return (.notFound, #"{"error":{"message":"not found"}}"#) }
            let id = String(path.dropFirst("/v1/models/".count))
            guard available.contains(id) else { return (.notFound, OpenAIErrorBody.modelNotFound(id)) }
            return (.ok, object(id).serialized)
        }
    }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let key: String
        let models: Models
        init(key: String, models: Models) {
            self.key = key
            self.models = models
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            let status: HTTPResponseStatus
            let body: String
            let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            if path != "/v1/models", !path.hasPrefix("/v1/models/") {
                status = .notFound
                body = #"{"error":{"message":"not found"}}"#
            } else if head.headers.first(name: "authorization") == "Bearer \(key)" {
                (status, body) = models.answer(path)
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

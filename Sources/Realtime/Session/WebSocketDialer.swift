import Basics
import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Set by the upgrade's deadline as it closes the channel: the failure that follows is the timeout's.
private final class DeadlineFlag: Sendable {
    let fired = Atomic<Bool>(false)
}

/// The only place that opens sockets: TCP (+ TLS for wss) + HTTP/1.1 upgrade to WebSocket, with the
/// frame limit raised and fragmented frames reassembled. Returns the upgraded channel or a classified failure.
struct WebSocketDialer: Sendable {
    let endpoint: RealtimeEndpoint
    let configuration: RealtimeConnectionConfiguration
    let group: any EventLoopGroup
    let tls: NIOSSLContext?

    enum UpgradeResult: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded(EventLoopFuture<RefusedUpgrade>)
    }

    init(endpoint: RealtimeEndpoint, configuration: RealtimeConnectionConfiguration, group: any EventLoopGroup) throws(RealtimeDisconnect) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.group = group
        if endpoint.useTLS {
            do {
                tls = try NIOSSLContext(configuration: .makeClientConfiguration())
            } catch {
                throw RealtimeDisconnect(kind: .fatal, reason: .connectFailed("TLS setup failed: \(error)"))
            }
        } else {
            tls = nil
        }
    }

    func dial() async throws(RealtimeDisconnect) -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame> {
        let endpoint = endpoint
        let maxFrameSize = configuration.maxFrameSize
        let timeout = TimeAmount.nanoseconds(configuration.connectTimeout.nanoseconds)
        let tls = tls
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: endpoint.hostHeader)
        headers.add(name: "Authorization", value: "Bearer \(configuration.apiKey.value)")
        headers.add(name: "User-Agent", value: "jarvis-voice")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: endpoint.requestURI, headers: headers)

        let deadlineFired = DeadlineFlag()
        let upgradeFuture: EventLoopFuture<UpgradeResult>
        do {
            upgradeFuture = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: endpoint.host, port: endpoint.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            let handler = try NIOSSLClientHandler(context: tls, serverHostname: endpoint.serverName)
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(
                            maxFrameSize: maxFrameSize,
                            upgradePipelineHandler: { channel, _ in
                                channel.eventLoop.makeCompletedFuture {
                                    try channel.pipeline.syncOperations.addHandler(
                                        NIOWebSocketFrameAggregator(
                                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                            maxAccumulatedFrameSize: maxFrameSize))
                                    return .websocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                                }
                            })
                        let configuration = NIOTypedHTTPClientUpgradeConfiguration<UpgradeResult>(
                            upgradeRequestHead: head, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                channel.eventLoop.makeCompletedFuture {
                                    let promise = channel.eventLoop.makePromise(of: RefusedUpgrade.self)
                                    try channel.pipeline.syncOperations.addHandler(RefusedUpgradeCatcher(promise: promise))
                                    return .notUpgraded(promise.futureResult)
                                }
                            })
                        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                        // The server's first frame (session.created) often shares a TCP read with the 101 response;
                        // NIO's client default drops such bytes.
                        pipeline.leftOverBytesStrategy = .forwardBytes
                        let result = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                        let deadline = channel.eventLoop.scheduleTask(in: timeout) {
                            deadlineFired.fired.store(true, ordering: .releasing)
                            channel.close(promise: nil)
                        }
                        result.whenComplete { _ in deadline.cancel() }
                        return result
                    }
                }
        } catch {
            throw Self.classifyConnect(error, host: endpoint.host)
        }
        let result: UpgradeResult
        do {
            result = try await upgradeFuture.get()
        } catch {
            // Our deadline closed the channel: NIO then fails the upgrade as an "inappropriate operation".
            if deadlineFired.fired.load(ordering: .acquiring) { throw upgradeTimedOut }
            throw RealtimeDisconnect(kind: .transient, reason: .connectFailed("WebSocket upgrade failed: \(Self.describe(error))"))
        }
        switch result {
        case .websocket(let channel):
            return channel
        case .notUpgraded(let refusal):
            guard let refused = try? await refusal.get() else {
                if deadlineFired.fired.load(ordering: .acquiring) { throw upgradeTimedOut }
                throw RealtimeDisconnect(kind: .transient, reason: .upgradeRejected(status: 0))
            }
            throw RealtimeDisconnect.classify(
                upgradeStatus: Int(refused.head.status.code), body: refused.apiError,
                retryAfterSeconds: refused.retryAfterSeconds, context: configuration.context)
        }
    }

    private var upgradeTimedOut: RealtimeDisconnect {
        RealtimeDisconnect(kind: .transient, reason: .upgradeTimedOut(milliseconds: Int(configuration.connectTimeout.wholeMilliseconds)))
    }

    /// A failed TCP connect, by the error's type and errno (never by its text).
    static func classifyConnect(_ error: any Error, host: String) -> RealtimeDisconnect {
        func unreachable(_ why: RealtimeDisconnect.Unreachable) -> RealtimeDisconnect {
            RealtimeDisconnect(kind: .transient, reason: .unreachable(host: host, why))
        }
        func fromErrno(_ code: Int32) -> RealtimeDisconnect.Unreachable {
            switch code {
            case ECONNREFUSED: .connectionRefused
            case ETIMEDOUT: .timedOut
            case ENETUNREACH, ENETDOWN: .networkUnreachable
            case EHOSTUNREACH, EHOSTDOWN: .hostUnreachable
            default: .socketError(errno: code)
            }
        }
        func classifyOne(_ error: any Error) -> RealtimeDisconnect.Unreachable? {
            if let error = error as? IOError { return fromErrno(error.errnoCode) }
            if case .connectTimeout? = error as? ChannelError { return .timedOut }
            return nil
        }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.lazy.compactMap({ classifyOne($0.error) }).first { return unreachable(first) }
            if error.dnsAError != nil || error.dnsAAAAError != nil || error.connectionErrors.isEmpty { return unreachable(.hostNotFound) }
        }
        if let why = classifyOne(error) { return unreachable(why) }
        if error is SocketAddressError || error is SocketAddressError.UnknownHost { return unreachable(.hostNotFound) }
        return RealtimeDisconnect(kind: .transient, reason: .connectFailed(describe(error)))
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return error.description }
        if error is ChannelError { return "\(error)" }
        return String(describing: error)
    }
}

/// An upgrade the server answered with something other than 101: its head and the start of its body.
struct RefusedUpgrade: Sendable {
    /// The body kept: OpenAI's error bodies are a few hundred bytes; a proxy's HTML page is cut here.
    static let maxBodyBytes = 16 << 10

    var head: HTTPResponseHead
    var body: [UInt8]

    /// OpenAI's `{"error": {"type", "code", "message", "param"}}`, or nil for any other body.
    var apiError: RealtimeError? {
        struct Envelope: Decodable { var error: RealtimeError }
        return try? JSONDecoder().decode(Envelope.self, from: Data(body)).error
    }

    /// `Retry-After` in whole seconds (the HTTP-date form is ignored), bounded to an hour.
    var retryAfterSeconds: Int? {
        guard let text = head.headers.first(name: "retry-after"), let seconds = Int(text.trimmed()), seconds >= 0 else { return nil }
        return min(seconds, 3600)
    }
}

/// Collects the response of an upgrade the server refused (401, 404, 429, 5xx, ...): the head and up to
/// `RefusedUpgrade.maxBodyBytes` of the body, until the body ends or the connection closes.
private final class RefusedUpgradeCatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    let promise: EventLoopPromise<RefusedUpgrade>
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var finished = false

    init(promise: EventLoopPromise<RefusedUpgrade>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body(let buffer):
            let room = RefusedUpgrade.maxBodyBytes - body.count
            if room > 0 { body += buffer.readableBytesView.prefix(room) }
        case .end:
            finish()
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { finish() }

    /// Succeeds with what arrived (a head whose body the server cut short still says why), else fails.
    private func finish() {
        guard !finished else { return }
        finished = true
        if let head {
            promise.succeed(RefusedUpgrade(head: head, body: body))
        } else {
            promise.fail(ChannelError.eof)
        }
    }
}

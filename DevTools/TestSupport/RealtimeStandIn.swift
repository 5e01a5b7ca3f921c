import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Realtime
import Synchronization
import TestProcess

/// An in-process stand-in for the OpenAI Realtime GA WebSocket API on 127.0.0.1 (ephemeral port): checks the
/// `Authorization` header, the requested model and every client event's shape, runs an energy VAD over
/// appended audio, plays a scripted `ask_jarvis` turn with real PCM, and misbehaves on request (refused
/// upgrades included). Records every client event.
public final class RealtimeStandIn: Sendable {
    public let script: RealtimeStandInScript
    public let port: Int
    private let serverChannel: NIOAsyncChannel<EventLoopFuture<UpgradeResult>, Never>
    private let gate: RealtimeUpgradeGate
    private let acceptor: Mutex<Task<Void, Never>?> = Mutex(nil)
    /// After `shutdown`: the port, still held (bound, not listening) so that connections are refused.
    private let stoppedPort = Mutex<ReservedPort?>(nil)
    let shared: Mutex<Shared> = Mutex(Shared())

    struct Shared {
        var events: [RecordedClientEvent] = []
        var rejections: [String] = []
        var connections: [StandInConnection] = []
        var upgradeAttempts = 0
        var authorizationFailures = 0
        var refusedUpgrades = 0
        var sentAudioDeltas = 0
        var answeredPings = 0
        var spokenItems: [SpokenItem] = []
    }

    enum UpgradeResult: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, HTTPRequestHead)
        case notUpgraded(NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>, UpgradeRefusalReason)
    }

    /// `ws://127.0.0.1:PORT/v1/realtime` (the client appends `?model=`).
    public var url: String { "ws://127.0.0.1:\(port)/v1/realtime" }

    private init(script: RealtimeStandInScript, gate: RealtimeUpgradeGate, channel: NIOAsyncChannel<EventLoopFuture<UpgradeResult>, Never>) {
        self.script = script
        self.gate = gate
        self.serverChannel = channel
        self.port = channel.channel.localAddress?.port ?? 0
    }

    /// `port` 0 picks a free one; a fixed port brings a stand-in back where a stopped one was ("the network
    /// is back").
    public static func start(script: RealtimeStandInScript = .init(), port: Int = 0) async throws -> RealtimeStandIn {
        let gate = RealtimeUpgradeGate(script: script)
        let channel: NIOAsyncChannel<EventLoopFuture<UpgradeResult>, Never> = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(ChannelOptions.standInReusePort, value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let verdict = UpgradeVerdict()
                    let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                        maxFrameSize: 32 << 20,
                        shouldUpgrade: { channel, head in
                            let refusal = gate.decide(head)
                            verdict.record(refusal)
                            return channel.eventLoop.makeSucceededFuture(refusal == nil ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, head in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOWebSocketFrameAggregator(
                                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: 32 << 20))
                                return .websocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel), head)
                            }
                        })
                    let configuration = NIOTypedHTTPServerUpgradeConfiguration<UpgradeResult>(
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(HTTPByteBufferResponsePartHandler())
                                return .notUpgraded(try NIOAsyncChannel(wrappingChannelSynchronously: channel), verdict.recorded ?? .notAnUpgrade)
                            }
                        })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        let standIn = RealtimeStandIn(script: script, gate: gate, channel: channel)
        standIn.acceptor.withLock { $0 = Task { await standIn.accept() } }
        return standIn
    }

    private func accept() async {
        try? await withThrowingDiscardingTaskGroup { group in
            try await serverChannel.executeThenClose { inbound in
                for try await upgrade in inbound {
                    group.addTask {
                        let result: UpgradeResult
                        do { result = try await upgrade.get() } catch { return }
                        await self.handle(result)
                    }
                }
            }
        }
    }

    private func handle(_ result: UpgradeResult) async {
        shared.withLock { $0.upgradeAttempts += 1 }
        switch result {
        case .notUpgraded(let http, let refusal):
            shared.withLock {
                $0.refusedUpgrades += 1
                if refusal == .wrongKey { $0.authorizationFailures += 1 }
            }
            let answer = refusal.response
            // The upgrade handler keeps the request head to itself; the first part we see may be `.end`.
            try? await http.executeThenClose { inbound, outbound in
                for try await _ in inbound {
                    let body = ByteBuffer(string: answer.body)
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: "application/json")
                    headers.add(name: "Content-Length", value: "\(body.readableBytes)")
                    headers.add(name: "Connection", value: "close")
                    for (name, value) in answer.headers { headers.add(name: name, value: value) }
                    try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers)))
                    try await outbound.write(.body(body))
                    try await outbound.write(.end(nil))
                    return
                }
            }
        case .websocket(let channel, let head):
            let authorized = head.headers["Authorization"].first == "Bearer \(script.apiKey)"
            if !authorized { shared.withLock { $0.authorizationFailures += 1 } }
            let connection = shared.withLock { shared in
                let connection = StandInConnection(number: shared.connections.count + 1, standIn: self, channel: channel)
                shared.connections.append(connection)
                return connection
            }
            await connection.run(
                authorized: authorized, betaHeader: !head.headers["OpenAI-Beta"].isEmpty,
                model: Self.model(in: head.uri))
        }
    }

    static func model(in uri: String) -> String? {
        guard let query = uri.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") where pair.hasPrefix("model=") { return String(pair.dropFirst(6)) }
        return nil
    }

    func record(_ event: RecordedClientEvent) { shared.withLock { $0.events.append(event) } }
    func reject(_ why: String) { shared.withLock { $0.rejections.append(why) } }
    func countDelta() { shared.withLock { $0.sentAudioDeltas += 1 } }
    func recordSpoken(_ item: SpokenItem) { shared.withLock { $0.spokenItems.append(item) } }

    // MARK: - For tests

    /// Every client event received, in order, across connections.
    public var clientEvents: [RecordedClientEvent] { shared.withLock { $0.events } }
    /// Shape problems the stand-in answered with an error (or a 4000 close).
    public var rejections: [String] { shared.withLock { $0.rejections } }
    public var connectionCount: Int { shared.withLock { $0.connections.count } }
    public var upgradeAttempts: Int { shared.withLock { $0.upgradeAttempts } }
    /// Attempts with a wrong key (refused with HTTP 401, or upgraded and answered with the error event).
    public var authorizationFailures: Int { shared.withLock { $0.authorizationFailures } }
    /// Upgrade attempts answered with an HTTP status instead of 101 (401, 404, 429, …).
    public var refusedUpgrades: Int { shared.withLock { $0.refusedUpgrades } }
    /// The `?model=` of every upgrade attempt, in order ("" when absent).
    public var requestedModels: [String] { gate.requestedModels }
    public var sentAudioDeltas: Int { shared.withLock { $0.sentAudioDeltas } }
    /// Pings answered with a pong, across connections (a script may leave the first connection's unanswered).
    public var answeredPings: Int { shared.withLock { $0.answeredPings } }
    /// Every assistant message item the model started to speak, in order, across connections.
    public var spokenItems: [SpokenItem] { shared.withLock { $0.spokenItems } }

    /// The ids of every item the conversations hold (user, assistant, function call, created), across
    /// connections; out-of-band responses add none.
    public var conversationItems: [String] {
        shared.withLock { $0.connections }.flatMap { connection in connection.state.withLock { $0.items }.sorted() }
    }

    public func clientEvents(ofType type: String) -> [RecordedClientEvent] { clientEvents.filter { $0.type == type } }

    /// The tool outputs the client sent (`function_call_output` items), in order.
    public var functionCallOutputs: [(callID: String, output: String)] {
        clientEvents(ofType: "conversation.item.create").compactMap { event in
            guard event.json["item"]?["type"]?.stringValue == "function_call_output",
                let callID = event.json["item"]?["call_id"]?.stringValue,
                let output = event.json["item"]?["output"]?.stringValue
            else { return nil }
            return (callID, output)
        }
    }

    /// Waits (polling every 5 ms) until `count` events of `type` arrived; false on timeout.
    public func waitForClientEvent(_ type: String, count: Int = 1, timeout: Duration = hangTimeout) async -> Bool {
        await waitUntil(timeout: timeout) { self.clientEvents(ofType: type).count >= count }
    }

    public func waitUntil(timeout: Duration = hangTimeout, _ condition: @Sendable () -> Bool) async -> Bool {
        await TestProcess.waitUntil(timeout: timeout, condition)
    }

    /// Misbehaves now on the newest connection.
    public func perform(_ action: RealtimeStandInAction) async {
        guard let connection = shared.withLock({ $0.connections.last }) else { return }
        await connection.perform(action)
    }

    /// Drops every connection and closes the listener; its port stays held, so connecting is refused
    /// (`ReservedPort`) until a stand-in starts on it again.
    public func shutdown() async {
        let connections = shared.withLock { $0.connections }
        for connection in connections { connection.abort() }
        stoppedPort.withLock { if $0 == nil { $0 = ReservedPort(port, sharing: true) } }
        try? await serverChannel.channel.close()
        await acceptor.withLock { $0 }?.value
    }
}

/// Writes HTTP response parts whose body is a ByteBuffer (what `NIOAsyncChannel` hands us) as `IOData`.
final class HTTPByteBufferResponsePartHandler: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = HTTPPart<HTTPResponseHead, ByteBuffer>
    typealias OutboundOut = HTTPServerResponsePart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch part {
        case .head(let head): context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body(let buffer): context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
        case .end(let trailers): context.write(wrapOutboundOut(.end(trailers)), promise: promise)
        }
    }
}

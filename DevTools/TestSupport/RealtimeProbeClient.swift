import Basics
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization
import TestProcess

/// A bare WebSocket client for the Realtime stand-in: sends client events as JSON text and keeps every
/// server event as JSON, with no product code in between, for tests of what the stand-in itself says.
public final class RealtimeProbeClient: Sendable {
    public struct NotUpgraded: Error, Sendable {}

    private enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    private let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
    private let outgoing: AsyncStream<WebSocketFrame>.Continuation
    private let received = Mutex<[JSONValue]>([])
    private let runner = Mutex<Task<Void, Never>?>(nil)

    private init(channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, outgoing: AsyncStream<WebSocketFrame>.Continuation) {
        self.channel = channel
        self.outgoing = outgoing
    }

    /// Upgrades `/v1/realtime?model=<model>` on 127.0.0.1:`port`; throws `NotUpgraded` when refused.
    public static func connect(port: Int, model: String, apiKey: String) async throws -> RealtimeProbeClient {
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try CloseOnExec.mark(channel)
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                        maxFrameSize: 32 << 20,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOWebSocketFrameAggregator(
                                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: 32 << 20))
                                return .websocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                            }
                        })
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    headers.add(name: "Authorization", value: "Bearer \(apiKey)")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/v1/realtime?model=\(model)", headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(.notUpgraded) })
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    // session.created may share a TCP read with the 101.
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        guard case .websocket(let channel) = try await upgrade.get() else { throw NotUpgraded() }
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketFrame.self)
        let client = RealtimeProbeClient(channel: channel, outgoing: continuation)
        client.runner.withLock { $0 = Task { await client.run(stream) } }
        return client
    }

    private func run(_ stream: AsyncStream<WebSocketFrame>) async {
        try? await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await frame in stream { try await outbound.write(frame) }
                }
                defer { group.cancelAll() }
                for try await frame in inbound {
                    switch frame.opcode {
                    case .text:
                        let event = JSONValue.parse(String(buffer: frame.unmaskedData)) ?? .null
                        received.withLock { $0.append(event) }
                    case .connectionClose: return
                    default: break
                    }
                }
            }
        }
    }

    /// Sends one client event (masked, as a client must).
    public func send(_ event: JSONValue) {
        outgoing.yield(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: event.jsonText)))
    }

    /// Every server event so far, in order (a frame that is not JSON as `.null`).
    public var events: [JSONValue] { received.withLock { $0 } }

    public func events(ofType type: String) -> [JSONValue] { events.filter { $0["type"]?.stringValue == type } }

    /// Waits until `count` events of `type` arrived; false on timeout.
    public func waitForEvent(_ type: String, count: Int = 1, timeout: Duration = hangTimeout) async -> Bool {
        await waitUntil(timeout: timeout) { self.events(ofType: type).count >= count }
    }

    /// Closes the TCP connection (no close handshake: the stand-in is not under test there) and waits for
    /// the reader.
    public func close() async {
        outgoing.finish()
        try? await channel.channel.close()
        await runner.withLock { $0 }?.value
    }
}

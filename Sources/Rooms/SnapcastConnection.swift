import AudioEngine
import NIOCore
import NIOPosix

/// One TCP connection to a snapserver's stream port, for the time it is open: what arrives goes to
/// `received` with the monotonic time it was read (the clock sync needs it), what `sends` yields is
/// written in order. Returns when the server closes; throws when the connection cannot be made or
/// breaks; cancelling the task closes it.
enum SnapcastConnection {
    static func run(
        host: String, port: Int, timeout: Duration, sends: AsyncStream<[UInt8]>,
        connected: @Sendable () -> Void, received: @escaping @Sendable ([UInt8], Int64) -> Void
    ) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(timeout))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        connected()
        try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await bytes in sends { try await outbound.write(ByteBuffer(bytes: bytes)) }
                }
                for try await buffer in inbound {
                    received(Array(buffer.readableBytesView), monotonicNanoseconds())
                }
                group.cancelAll()
            }
        }
    }
}

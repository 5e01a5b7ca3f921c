import Basics
import NIOCore
import NIOPosix
import Snapcast

/// Calls on a snapserver's JSON-RPC control port. Each call opens its own connection: calls are rare (a
/// poll every few seconds, an owner's command), and a fresh connection has no state to go stale when the
/// server restarts and no notifications of earlier changes queued in front of the answer.
public struct SnapcastControlClient: Sendable {
    public let host: String
    public let port: Int
    /// For the connection and the answer together.
    public let timeout: Duration

    public init(host: String, port: Int, timeout: Duration = .seconds(3)) {
        self.host = host
        self.port = port
        self.timeout = timeout
    }

    var server: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public func status() async throws(SnapcastControlClientError) -> SnapcastServerStatus {
        let result = try await call(.serverStatus(id: 1))
        do throws(SnapcastControlError) {
            return try SnapcastServerStatus(result: result)
        } catch {
            throw .control(error)
        }
    }

    public func setGroupStream(groupID: String, streamID: String) async throws(SnapcastControlClientError) {
        _ = try await call(.setGroupStream(id: 1, groupID: groupID, streamID: streamID))
    }

    /// `percent` 0...100.
    public func setClientVolume(clientID: String, percent: Int, muted: Bool) async throws(SnapcastControlClientError) {
        _ = try await call(.setClientVolume(id: 1, clientID: clientID, percent: percent, muted: muted))
    }

    /// Sends `request` and returns its result; notifications before the answer are skipped.
    public func call(_ request: SnapcastControlRequest) async throws(SnapcastControlClientError) -> JSONValue {
        let server = self.server, timeout = self.timeout
        do {
            return try await withThrowingTaskGroup(of: JSONValue?.self) { group in
                group.addTask { try await exchange(request) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else {
                    throw SnapcastControlClientError.timedOut(server: server)
                }
                return result
            }
        } catch let error as SnapcastControlClientError {
            throw error
        } catch let error as SnapcastControlError {
            throw .control(error)
        } catch {
            throw .unreachable(server: server, reason: "\(error)")
        }
    }

    private func exchange(_ request: SnapcastControlRequest) async throws -> JSONValue {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(timeout))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let server = self.server
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request.line))
            var lines = SnapcastControlLineBuffer()
            for try await buffer in inbound {
                lines.append(buffer.readableBytesView)
                while let line = try lines.next() {
                    if let result = try SnapcastControlMessage(line: line).result(for: request.id) { return result }
                }
            }
            throw SnapcastControlClientError.closed(server: server)
        }
    }
}

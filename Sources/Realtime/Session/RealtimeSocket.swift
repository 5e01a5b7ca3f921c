import FoundationEssentials
import NIOCore
import NIOWebSocket
import Synchronization

/// What one connected socket reports while it runs.
enum RealtimeSocketOutput: Sendable {
    case event(ServerEvent)
    case undecodable(RealtimeDecodingError)
}

/// One upgraded WebSocket: a writer task drains the outbound queue, a pinger keeps it alive, the caller's task
/// reads and decodes frames until the close handshake or the TCP connection ends. Sending never blocks.
final class RealtimeSocket: Sendable {
    private struct State {
        var closedByUs = false
        var closeSent = false
        var lastError: RealtimeError?
        var lastInbound: ContinuousClock.Instant
        var pingTimedOut = false
    }

    private let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
    private let configuration: RealtimeConnectionConfiguration
    private let outbound: AsyncStream<WebSocketFrame>.Continuation
    private let outboundFrames: AsyncStream<WebSocketFrame>
    private let state: Mutex<State>
    let counters: Mutex<ServerEventDecoder> = Mutex(ServerEventDecoder())

    init(channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, configuration: RealtimeConnectionConfiguration) {
        self.channel = channel
        self.configuration = configuration
        (outboundFrames, outbound) = AsyncStream.makeStream(of: WebSocketFrame.self)
        state = Mutex(State(lastInbound: .now))
    }

    @discardableResult
    func send(text: String) -> Bool {
        guard !state.withLock({ $0.closeSent }) else { return false }
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        if case .enqueued = outbound.yield(frame) { return true }
        return false
    }

    /// Drops the TCP connection at once (the reading task was cancelled).
    func abort() {
        state.withLock { $0.closedByUs = true }
        channel.channel.close(promise: nil)
    }

    /// Starts the close handshake (code 1000).
    func close() {
        let first = state.withLock { state -> Bool in
            state.closedByUs = true
            defer { state.closeSent = true }
            return !state.closeSent
        }
        guard first else { return }
        var data = ByteBuffer()
        data.write(webSocketErrorCode: .normalClosure)
        outbound.yield(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data))
    }

    /// Reads until the connection ends; returns why it ended.
    func run(deliver: @Sendable (RealtimeSocketOutput) -> Void) async -> RealtimeDisconnect {
        var closeCode: Int?
        var closeReason = ""
        let configuration = configuration
        let channel = channel
        do {
            try await channel.executeThenClose { inbound, writer in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.writeLoop(writer) }
                    group.addTask { try await self.pingLoop(configuration) }
                    defer { group.cancelAll() }
                    for try await frame in inbound {
                        state.withLock { $0.lastInbound = .now }
                        switch frame.opcode {
                        case .text:
                            let output = decode(frame.data)
                            deliver(output)
                        case .binary:
                            deliver(
                                .undecodable(RealtimeDecodingError(kind: .invalidJSON, detail: "binary frame of \(frame.data.readableBytes) bytes")))
                        case .ping:
                            outbound.yield(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.data))
                        case .connectionClose:
                            var data = frame.data
                            closeCode = data.readWebSocketErrorCode().map(Self.code) ?? 1005
                            closeReason = data.readString(length: data.readableBytes) ?? ""
                            let echo = state.withLock { state -> Bool in
                                defer { state.closeSent = true }
                                return !state.closeSent
                            }
                            if echo {
                                var reply = ByteBuffer()
                                reply.write(webSocketErrorCode: .init(codeNumber: closeCode ?? 1000))
                                try? await writer.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: reply))
                            }
                            return
                        default:
                            break
                        }
                    }
                }
            }
        } catch {
            // The reader ended by error (reset, TLS failure, oversized frame): classified below as a lost connection.
        }
        outbound.finish()
        let snapshot = state.withLock { $0 }
        if snapshot.pingTimedOut && closeCode == nil {
            return RealtimeDisconnect(kind: .transient, reason: .pingTimeout)
        }
        return RealtimeDisconnect.classify(
            closeCode: closeCode, closeReason: closeReason, lastError: snapshot.lastError, closedByUs: snapshot.closedByUs,
            context: configuration.context)
    }

    private func decode(_ buffer: ByteBuffer) -> RealtimeSocketOutput {
        let data = buffer.withUnsafeReadableBytes { Data($0) }
        let result = counters.withLock { $0.decode(data) }
        switch result {
        case .success(let event):
            if case .error(let error) = event {
                state.withLock { $0.lastError = error }
                if RealtimeDisconnect.classify(error, context: configuration.context)?.isFatal == true { close() }
            }
            return .event(event)
        case .failure(let problem):
            return .undecodable(problem)
        }
    }

    private func writeLoop(_ writer: NIOAsyncChannelOutboundWriter<WebSocketFrame>) async throws {
        for await frame in outboundFrames {
            try await writer.write(frame)
            if frame.opcode == .connectionClose {
                // Give the server a moment to answer the close, then drop the TCP connection ourselves.
                try await Task.sleep(for: configuration.closeTimeout)
                channel.channel.close(promise: nil)
                return
            }
        }
    }

    private func pingLoop(_ configuration: RealtimeConnectionConfiguration) async throws {
        while true {
            try await Task.sleep(for: configuration.pingInterval)
            let silent = state.withLock { $0.lastInbound.duration(to: .now) }
            if silent >= configuration.pingInterval + configuration.pongTimeout {
                state.withLock { $0.pingTimedOut = true }
                channel.channel.close(promise: nil)
                return
            }
            outbound.yield(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: ByteBuffer(string: "jv")))
        }
    }

    private static func code(_ code: WebSocketErrorCode) -> Int {
        switch code {
        case .normalClosure: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .unacceptableData: 1003
        case .dataInconsistentWithMessage: 1007
        case .policyViolation: 1008
        case .messageTooLarge: 1009
        case .missingExtension: 1010
        case .unexpectedServerError: 1011
        case .unknown(let value): Int(value)
        }
    }
}

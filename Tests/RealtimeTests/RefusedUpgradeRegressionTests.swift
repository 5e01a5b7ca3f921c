import Glibc
import Realtime
import Synchronization
import Testing

/// The Realtime endpoint refuses the WebSocket upgrade with a plain HTTP status (what a proxy, an
/// expired key, a rate limit or an outage looks like on the wire). The connection reports it as a typed
/// `RealtimeDisconnect`: 401/403 are fatal (retrying cannot fix a key), 404 is the model, a bare 429 a
/// rate limit and 5xx transient; whether
/// to try again is the runner's decision (ConversationRunner tests), never the connection's.
@Suite struct RefusedUpgradeRegressionTests {
    @Test(arguments: [401, 403])
    func aRefusedKeyIsFatal(_ status: Int32) async throws {
        let refuser = try UpgradeRefuser(status: status)
        defer { refuser.stop() }
        let failure = try #require(await Self.open(url: refuser.url))
        #expect(failure.kind == .fatal)
        #expect(failure.reason == .invalidAPIKey(source: "the configured API key"))
        #expect(refuser.requests == 1)
    }

    @Test(arguments: [500, 502, 503])
    func aServerErrorIsTransient(_ status: Int32) async throws {
        let refuser = try UpgradeRefuser(status: status)
        defer { refuser.stop() }
        let failure = try #require(await Self.open(url: refuser.url))
        #expect(failure.kind == .transient)
        #expect(failure.reason == .upgradeRejected(status: Int(status)))
        #expect(refuser.requests == 1, "the connection dials once; retries belong to its owner")
    }

    @Test func aBareRateLimitIsTransient() async throws {
        let refuser = try UpgradeRefuser(status: 429)
        defer { refuser.stop() }
        let failure = try #require(await Self.open(url: refuser.url))
        #expect(failure.kind == .transient && failure.reason == .rateLimited(retryAfterSeconds: nil))
        #expect(refuser.requests == 1)
    }

    /// A server that takes the connection but never answers the upgrade (a hung proxy, a stalled server):
    /// the dial gives up after `connectTimeout` and says so in plain words, as a failure worth retrying.
    @Test func anUpgradeNobodyAnswersTimesOutInPlainWords() async throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        let failure = try #require(await Self.open(url: listener.url, connectTimeout: .milliseconds(500)))
        #expect(failure.kind == .transient)
        #expect(failure.reason == .upgradeTimedOut(milliseconds: 500))
        #expect(
            failure.description
                == "the Realtime API took the connection but did not answer the WebSocket upgrade within 0.5 s")
    }

    /// Dials `url` once; returns how it failed (nil if it unexpectedly connected).
    static func open(url: String, connectTimeout: Duration = .seconds(10)) async -> RealtimeDisconnect? {
        let configuration = RealtimeConnectionConfiguration(
            url: url, model: "gpt-realtime", apiKey: RealtimeAPIKey("sk-refused-test-key"), connectTimeout: connectTimeout)
        do {
            let connection = try await RealtimeConnection.open(configuration: configuration)
            connection.close()
            return nil
        } catch {
            return error
        }
    }
}

/// A loopback HTTP server that answers every request with `status` and closes (no upgrade).
final class UpgradeRefuser: Sendable {
    let url: String
    private let listener: Int32
    private let served = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    init(status: Int32) throws {
        let bound = try LoopbackListener()
        listener = bound.fd
        url = bound.url
        let response = Array("HTTP/1.1 \(status) Refused\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".utf8)
        let thread = Thread { [self] in self.serve(response) }
        thread.start()
    }

    var requests: Int { served.load(ordering: .sequentiallyConsistent) }

    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
    }

    private func serve(_ response: [UInt8]) {
        defer { close(listener) }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while request.count < 65_536, !request.ends(with: [13, 10, 13, 10]) {
                var cpfd = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                guard poll(&cpfd, 1, 5_000) > 0 else { break }
                let count = recv(client, &buffer, buffer.count, 0)
                if count <= 0 { break }
                request += buffer[0..<count]
            }
            served.wrappingAdd(1, ordering: .sequentiallyConsistent)  // counted before the client can see the answer
            _ = response.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(client)
        }
    }
}

/// A listening loopback socket (`ws://` URL) that accepts nothing itself: the kernel completes clients'
/// TCP handshakes into its backlog, so they connect and then hear nothing until someone serves it.
struct LoopbackListener {
    struct Failure: Error { var call: String }

    let fd: Int32
    let url: String

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopbackListener.Failure(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 16) == 0 else {
            Glibc.close(fd)
            throw LoopbackListener.Failure(call: "bind/listen")
        }
        self.fd = fd
        url = "ws://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/v1/realtime"
    }

    func close() { Glibc.close(fd) }
}

/// A detached pthread running `body`.
private final class Thread: @unchecked Sendable {
    private let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    func start() {
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        if pthread_create(
            &handle, nil,
            { raw in
                Unmanaged<Thread>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, context) == 0
        {
            pthread_detach(handle)
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

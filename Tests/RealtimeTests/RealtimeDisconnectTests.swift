import Basics
import Realtime
import Testing

@Suite struct RealtimeDisconnectTests {
    static let context = RealtimeConnectionContext(model: "gpt-realtime", apiKeySource: "/etc/credstore/openai-api-key")

    static func closed(_ code: Int?, reason: String = "", error: String?, byUs: Bool = false) -> RealtimeDisconnect {
        RealtimeDisconnect.classify(
            closeCode: code, closeReason: reason, lastError: error.map { RealtimeError(code: $0, message: "m") }, closedByUs: byUs,
            context: context)
    }

    static func refused(_ status: Int, type: String? = nil, code: String? = nil, retryAfter: Int? = nil) -> RealtimeDisconnect {
        let body = type == nil && code == nil ? nil : RealtimeError(type: type, code: code, message: "m")
        return RealtimeDisconnect.classify(upgradeStatus: status, body: body, retryAfterSeconds: retryAfter, context: context)
    }

    @Test func classifiesCloseCodesAndErrorCodes() {
        #expect(Self.closed(nil, error: nil).reason == .connectionLost)
        let expired = Self.closed(1001, reason: "Your session hit the maximum duration of 60 minutes.", error: "session_expired")
        #expect(expired.kind == .expired)
        #expect(expired.reason == .sessionExpired)
        #expect(Self.closed(4000, error: "beta_api_shape_disabled").kind == .fatal)
        #expect(Self.closed(4000, error: nil).reason == .betaShapeRejected)
        #expect(Self.closed(1008, error: "invalid_api_key").reason == .invalidAPIKey(source: "/etc/credstore/openai-api-key"))
        #expect(Self.closed(1000, error: "insufficient_quota", byUs: true).reason == .outOfCredit)
        #expect(Self.closed(1000, error: "conversation_already_has_active_response", byUs: true).kind == .closedByClient)
        #expect(Self.closed(1011, error: nil).kind == .transient)
        #expect(Self.refused(401).reason == .invalidAPIKey(source: "/etc/credstore/openai-api-key"))
        #expect(Self.refused(503).kind == .transient)
        #expect(
            RealtimeDisconnect(kind: .fatal, reason: .invalidAPIKey(source: "/etc/credstore/openai-api-key")).description
                == "the Realtime API rejected the API key from /etc/credstore/openai-api-key; put a valid OpenAI API key there")
        #expect(Self.closed(1008, reason: "api key", error: nil).kind == .transient, "close reasons are text for people, never classified")
    }

    /// A refused upgrade is read by its JSON body's code and type, then its status; never by its message.
    @Test func refusedUpgradesAreReadFromTheirBody() {
        let outOfCredit = Self.refused(429, type: "insufficient_quota", code: "credit_balance_exhausted")
        #expect(outOfCredit.kind == .fatal && outOfCredit.reason == .outOfCredit)
        #expect(Self.refused(429, type: "insufficient_quota", code: "insufficient_quota").reason == .outOfCredit)
        #expect(outOfCredit.description.hasPrefix("the OpenAI account is out of credit: add credit at https://"))
        let limited = Self.refused(429, type: "requests", code: "rate_limit_exceeded", retryAfter: 2)
        #expect(limited.kind == .transient && limited.reason == .rateLimited(retryAfterSeconds: 2) && limited.retryAfter == .seconds(2))
        #expect(Self.refused(429).reason == .rateLimited(retryAfterSeconds: nil))
        let retired = Self.refused(404, type: "invalid_request_error", code: "model_not_found")
        #expect(retired.kind == .fatal && retired.reason == .modelNotFound(model: "gpt-realtime"))
        #expect(retired.description.contains(#"set [realtime] model = "gpt-realtime-2.1""#), "names the key and the replacement")
        #expect(retired.description.contains(#""gpt-realtime""#), "names the model")
        #expect(Self.refused(404).reason == .modelNotFound(model: "gpt-realtime"), "a bare 404 at the upgrade: the model path")
        #expect(Self.refused(403, code: "invalid_api_key").kind == .fatal)
        #expect(
            Self.refused(500, type: "server_error", code: "session_expired").reason == .upgradeRejected(status: 500),
            "an expiry code cannot refuse an upgrade")
        #expect(Backoff.realtimeReconnect.delay(attempt: 1, notBefore: limited.retryAfter) == .seconds(2), "Retry-After is a floor")
        #expect(Backoff.realtimeReconnect.delay(attempt: 1, notBefore: nil) == .milliseconds(250))
    }

    /// The issue's example: check-config accepted `ws://[::1]/v1/realtime`, connecting refused it. Both now
    /// parse with `WebURL.Rules.realtime`.
    @Test func endpointTakesIPv6LiteralsAsCheckConfigDoes() throws {
        let endpoint = try RealtimeEndpoint(url: "ws://[::1]/v1/realtime", model: "gpt-realtime")
        #expect(!endpoint.useTLS && endpoint.host == "::1" && endpoint.port == 80)
        #expect(endpoint.hostHeader == "[::1]" && endpoint.serverName == nil)
        #expect(endpoint.requestURI == "/v1/realtime?model=gpt-realtime")
        let ported = try RealtimeEndpoint(url: "wss://[2001:db8::1]:8443/v1/realtime", model: "m")
        #expect(ported.host == "2001:db8::1" && ported.port == 8443 && ported.hostHeader == "[2001:db8::1]:8443")
        #expect(throws: RealtimeEndpoint.ParseError.self) { try RealtimeEndpoint(url: "ws://127.0.0.1.evil.com/v1/realtime", model: "m") }
        #expect(throws: RealtimeEndpoint.ParseError.self) { try RealtimeEndpoint(url: "wss://me:pw@api.openai.com/v1/realtime", model: "m") }
        #expect(try RealtimeEndpoint(url: "wss://api.openai.com/v1/realtime", model: "m").serverName == "api.openai.com")
    }

    @Test func endpointAppendsModelAndRefusesPlainWebSocketsOffLoopback() throws {
        let endpoint = try RealtimeEndpoint(url: "wss://api.openai.com/v1/realtime", model: "gpt-realtime")
        #expect(endpoint.useTLS)
        #expect(endpoint.host == "api.openai.com")
        #expect(endpoint.port == 443)
        #expect(endpoint.requestURI == "/v1/realtime?model=gpt-realtime")
        let local = try RealtimeEndpoint(url: "ws://127.0.0.1:8089/v1/realtime?x=1", model: "gpt-realtime-mini")
        #expect(local.port == 8089)
        #expect(local.requestURI == "/v1/realtime?x=1&model=gpt-realtime-mini")
        #expect(throws: RealtimeEndpoint.ParseError.self) { try RealtimeEndpoint(url: "ws://10.0.0.5/v1/realtime", model: "m") }
        #expect(throws: RealtimeEndpoint.ParseError.self) { try RealtimeEndpoint(url: "https://api.openai.com", model: "m") }
        #expect(throws: RealtimeEndpoint.ParseError.self) { try RealtimeEndpoint(url: "wss://api.openai.com/v1/realtime", model: "a b") }
    }

    @Test func apiKeyNeverPrints() {
        let key = RealtimeAPIKey("sk-secret-value")
        #expect("\(key)" == "<redacted>")
        #expect(!String(reflecting: key).contains("sk-secret"))
    }
}

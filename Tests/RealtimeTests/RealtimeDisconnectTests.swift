import Realtime
import Testing

@Suite struct RealtimeDisconnectTests {
    @Test func classifiesCloseCodesAndErrorCodes() {
        #expect(RealtimeDisconnect.classify(closeCode: nil, lastErrorCode: nil, closedByUs: false).reason == .connectionLost)
        let expired = RealtimeDisconnect.classify(
            closeCode: 1001, closeReason: "Your session hit the maximum duration of 60 minutes.", lastErrorCode: "session_expired", closedByUs: false)
        #expect(expired.kind == .expired)
        #expect(expired.reason == .sessionExpired)
        #expect(RealtimeDisconnect.classify(closeCode: 4000, lastErrorCode: "beta_api_shape_disabled", closedByUs: false).kind == .fatal)
        #expect(RealtimeDisconnect.classify(closeCode: 4000, lastErrorCode: nil, closedByUs: false).reason == .betaShapeRejected)
        #expect(RealtimeDisconnect.classify(closeCode: 1008, lastErrorCode: "invalid_api_key", closedByUs: false).reason == .invalidAPIKey)
        #expect(RealtimeDisconnect.classify(closeCode: 1000, lastErrorCode: "insufficient_quota", closedByUs: true).reason == .insufficientQuota)
        #expect(RealtimeDisconnect.classify(closeCode: 1000, lastErrorCode: "conversation_already_has_active_response", closedByUs: true).kind == .closedByClient)
        #expect(RealtimeDisconnect.classify(closeCode: 1011, lastErrorCode: nil, closedByUs: false).kind == .transient)
        #expect(RealtimeDisconnect.classify(upgradeStatus: 401).reason == .invalidAPIKey)
        #expect(RealtimeDisconnect.classify(upgradeStatus: 503).kind == .transient)
        #expect(RealtimeDisconnect(kind: .fatal, reason: .invalidAPIKey).description == "the Realtime API rejected the API key; check realtime.api_key_file")
        #expect(RealtimeDisconnect.classify(closeCode: 1008, closeReason: "api key", lastErrorCode: nil, closedByUs: false).kind == .transient,
                "close reasons are text for people, never classified")
    }

    /// The example: check-config accepted `ws://[::1]/v1/realtime`, connecting refused it. Both now
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

import Basics
import FoundationEssentials
import HTTP
import Logging

/// What the tool layer needs: ask a question, always get something to say back.
public protocol JarvisAsking: Sendable {
    /// Never throws and never returns empty text unless the caller cancelled: failures come back
    /// as spoken explanations.
    func ask(_ query: String) async -> JarvisAnswer
    /// Forget the Jarvis session (long hold, `ctl reset`): the next question starts fresh.
    func resetSession() async
    /// The current term-llm session id (for the status JSON), nil when none or expired.
    func currentSessionID() async -> String?
}

/// The outcome of one question.
public struct JarvisAnswer: Sendable, Equatable {
    /// What to hand to the voice model as the tool output.
    public var spokenText: String
    /// nil when Jarvis answered.
    public var failure: JarvisFailure?
    /// The answer as received (before voice shaping); empty on failure.
    public var rawText: String

    public init(spokenText: String, failure: JarvisFailure?, rawText: String) {
        self.spokenText = spokenText
        self.failure = failure
        self.rawText = rawText
    }
}

/// The term-llm (or OpenClaw) client: one user message per turn, streamed over SSE, the session
/// kept across turns, every failure turned into a short spoken explanation, and a circuit breaker
/// that answers at once while Jarvis is known to be down. Closing the connection (task
/// cancellation, barge-in) cancels the run on the server.
public actor JarvisClient: JarvisAsking {
    let settings: JarvisSettings
    let token: String
    let http: HTTPClient
    private let clock: JarvisClock
    private let logger: Logger
    private let shaper: VoiceShaper
    private var session: JarvisSessionTracker
    private var breaker: CircuitBreaker

    /// `token` is the bearer token's value (read from `token_file` by the configuration layer).
    public init(
        settings: JarvisSettings, token: String, http: HTTPClient, clock: JarvisClock = .continuous,
        logger: Logger = Logger(label: "jarvis")
    ) {
        self.settings = settings
        self.token = token
        self.http = http
        self.clock = clock
        self.logger = logger
        self.shaper = VoiceShaper(maxWords: settings.maxAnswerWords)
        self.session = JarvisSessionTracker(idleReset: settings.sessionIdleReset)
        self.breaker = CircuitBreaker(threshold: settings.breakerFailureThreshold, cooldown: settings.breakerCooldown)
    }

    public func resetSession() {
        session.reset()
        logger.info("Jarvis session forgotten; the next question starts a new one")
    }

    public func currentSessionID() -> String? {
        session.expireIfIdle(now: clock.now())
        return session.sessionID
    }

    /// Whether questions are currently answered at once without contacting Jarvis.
    public func isCircuitOpen() -> Bool { breaker.isOpen(now: clock.now()) }

    public func ask(_ query: String) async -> JarvisAnswer {
        let startedAt = clock.now()
        if let failure = breaker.check(now: startedAt) {
            logger.notice("Jarvis circuit breaker open; answering at once", metadata: ["last_failure": "\(failure)"])
            return JarvisAnswer(spokenText: failure.spokenExplanation, failure: failure, rawText: "")
        }
        if session.expireIfIdle(now: startedAt) {
            logger.info("Jarvis session idle for \(settings.sessionIdleReset); starting a new one")
        }
        do {
            let raw = try await exchange(query)
            breaker.recordSuccess()
            let spoken = shaper.shape(raw)
            logger.info(
                "Jarvis answered",
                metadata: [
                    "ms": "\((clock.now() - startedAt).wholeMilliseconds)",
                    "words": "\(spoken.split(separator: " ").count)",
                    "session": "\(session.sessionID ?? "-")"
                ])
            guard !spoken.isEmpty else {
                let failure = JarvisFailure.serverError(detail: "empty answer")
                logger.warning("\(failure)")
                return JarvisAnswer(spokenText: "Jarvis finished but didn't say anything.", failure: failure, rawText: raw)
            }
            return JarvisAnswer(spokenText: spoken, failure: nil, rawText: raw)
        } catch {
            let failure = error as? JarvisFailure ?? .serverError(detail: "unexpected error \(type(of: error))")
            if failure != .cancelled {
                breaker.recordFailure(failure, now: clock.now())
                logger.warning("\(failure)", metadata: ["consecutive_failures": "\(breaker.consecutiveFailures)"])
            } else {
                logger.info("Jarvis request cancelled; connection closed so the run stops")
            }
            return JarvisAnswer(spokenText: failure.spokenExplanation, failure: failure, rawText: "")
        }
    }

    // MARK: one exchange

    private func exchange(_ query: String) async throws -> String {
        let request = try makeRequest(query)
        let host = request.host
        let response: HTTPResponse
        do {
            response = try await http.execute(request)
        } catch {
            logger.debug("\(error)")
            throw Self.failure(from: error)
        }
        // term-llm has seen the turn (even a failing one touches the session).
        let mintedID = response.head.value(for: "x-session-id")
        if case .termLLM = settings.backend {
            session.adopt(sessionID: mintedID, now: clock.now())
        }
        guard response.status == 200 else {
            let snippet = await Self.errorMessage(response)
            response.cancel()
            throw Self.failure(status: response.status, message: snippet, host: host)
        }

        var parser = SSEParser()
        var answer = AnswerAccumulator()
        var finished = false
        var responseID: String?
        let usesResponsesAPI = settings.api == .responses
        func decode(_ item: SSEItem) -> [JarvisStreamEvent] {
            usesResponsesAPI ? ResponsesStreamDecoder.decode(item) : ChatCompletionsStreamDecoder.decode(item)
        }
        do {
            streaming: for try await chunk in response.body {
                for item in parser.feed(chunk) {
                    for event in decode(item) {
                        switch event {
                        case .text(let text): answer.add(text)
                        case .toolCall(let name, let arguments):
                            answer.toolCalled()
                            if name == "ask_user" {
                                // term-llm would wait (pings only) for an answer over another route; close the
                                // run instead and speak the question, so the user's reply becomes the next turn.
                                response.cancel()
                                session.touch(now: clock.now())
                                return Self.askUserQuestion(arguments)
                            }
                        case .keepAlive, .unreadable: break
                        case .finished(let id):
                            finished = true
                            responseID = id ?? responseID
                        case .failed(let message, let type):
                            response.cancel()
                            throw Self.failure(inBand: type, message: message)
                        case .done:
                            break streaming
                        }
                    }
                }
            }
        } catch let failure as JarvisFailure {
            throw failure
        } catch {
            if finished { return answer.answer(droppingPreamble: settings.dropTextBeforeToolCalls) }
            logger.debug("\(error)")
            throw Self.failure(from: error)
        }
        response.cancel()  // no-op when complete; stops reading after [DONE]
        if settings.api == .responses, let responseID {
            session.adopt(sessionID: nil, previousResponseID: responseID, now: clock.now())
        }
        session.touch(now: clock.now())
        guard finished || answer.fullText.contains(where: { !$0.isWhitespace }) else {
            throw JarvisFailure.serverError(detail: "stream from \(host) ended without an answer")
        }
        return answer.answer(droppingPreamble: settings.dropTextBeforeToolCalls)
    }

    private func makeRequest(_ query: String) throws(JarvisFailure) -> HTTPRequest {
        let endpoint: String
        do { endpoint = try settings.endpoint() } catch { throw .wrongURL(detail: error.description) }
        var headers = [
            HTTPHeader("Authorization", "Bearer \(token)"),
            HTTPHeader("Content-Type", "application/json"),
            HTTPHeader("Accept", "text/event-stream")
        ]
        var model: String?
        switch settings.backend {
        case .termLLM:
            if let id = session.sessionID { headers.append(HTTPHeader("session_id", id)) }
        case .openClaw(let sessionKey, let agentTarget):
            headers.append(HTTPHeader("x-openclaw-session-key", sessionKey))
            headers.append(HTTPHeader("x-openclaw-message-channel", "voice"))
            model = agentTarget
        }
        let body: [UInt8]
        switch settings.api {
        case .chatCompletions:
            body = Self.encode(ChatBody(model: model, messages: [.init(role: "user", content: query)], stream: true))
        case .responses:
            body = Self.encode(ResponsesBody(model: model, input: query, stream: true, previousResponseID: session.previousResponseID))
        }
        return HTTPRequest(
            method: "POST", url: endpoint, headers: headers, body: body,
            connectTimeout: settings.connectTimeout, inactivityTimeout: settings.inactivityTimeout,
            totalTimeout: settings.totalTimeout, maxRedirects: 0, maxBufferedBytes: 256 * 1024)
    }

    private struct ChatBody: Encodable {
        struct Message: Encodable {
            var role: String
            var content: String
        }
        var model: String?
        var messages: [Message]
        var stream: Bool
    }

    private struct ResponsesBody: Encodable {
        var model: String?
        var input: String
        var stream: Bool
        var previousResponseID: String?
        enum CodingKeys: String, CodingKey {
            case model, input, stream
            case previousResponseID = "previous_response_id"
        }
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(value))) ?? []
    }

    /// "Jarvis asks: ..." from ask_user's `{"questions":[{"question":...,"options":[{"label":...}]}]}`.
    static func askUserQuestion(_ arguments: String?) -> String {
        struct Arguments: Decodable {
            struct Question: Decodable {
                struct Option: Decodable { var label: String? }
                var question: String?
                var options: [Option]?
            }
            var questions: [Question]?
        }
        guard let arguments, let decoded = try? JSONDecoder().decode(Arguments.self, from: Data(arguments.utf8)),
            let first = decoded.questions?.first, let question = first.question, !question.isEmpty
        else {
            return "Jarvis needs more information to answer that. Could you say a bit more?"
        }
        let labels = (first.options ?? []).compactMap(\.label).filter { !$0.isEmpty }
        let choices = labels.isEmpty ? "" : " The options are: " + labels.joined(separator: ", ") + "."
        return "Jarvis asks: " + question + choices
    }

    // MARK: error mapping

    private static func failure(from error: any Error) -> JarvisFailure {
        guard let error = error as? HTTPError else { return .serverError(detail: "unexpected error \(type(of: error))") }
        switch error.kind {
        case .cancelled: return .cancelled
        case .inactivityTimeout, .totalTimeout: return .timeout(detail: error.plainDescription)
        case .couldNotResolve, .couldNotConnect, .connectTimeout, .tls, .clientShutDown: return .offline(detail: error.plainDescription)
        case .connectionLost: return .offline(detail: error.plainDescription)
        case .tooManyRedirects: return .wrongURL(detail: error.plainDescription)
        case .invalidRequest, .other: return .serverError(detail: error.plainDescription)
        }
    }

    private static func failure(status: Int, message: String, host: String) -> JarvisFailure {
        let detail = "HTTP \(status) from \(host)" + (message.isEmpty ? "" : ": \(message)")
        switch status {
        case 401, 403: return .authenticationFailed(detail: detail)
        case 409, 429: return .busy(detail: detail)
        case 408, 504: return .timeout(detail: detail)
        case 300..<400, 404, 405: return .wrongURL(detail: detail)
        default: return .serverError(detail: detail)
        }
    }

    private static func failure(inBand type: String, message: String) -> JarvisFailure {
        let detail = "in-stream \(type): \(message)"
        switch type {
        case "conflict_error": return .busy(detail: detail)
        case "timeout_error": return .timeout(detail: detail)
        case "invalid_api_key", "unauthorized": return .authenticationFailed(detail: detail)
        default: return .serverError(detail: detail)
        }
    }

    /// `error.message` from a JSON error body (first 200 characters), else "".
    private static func errorMessage(_ response: HTTPResponse) async -> String {
        struct Body: Decodable {
            struct Inner: Decodable { var message: String? }
            var error: Inner?
        }
        guard let bytes = try? await response.collect(upTo: 64 * 1024),
            let body = try? JSONDecoder().decode(Body.self, from: Data(bytes)),
            let message = body.error?.message
        else { return "" }
        return String(message.prefix(200))
    }
}

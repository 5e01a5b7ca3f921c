/// The client's side of one reading, event by event, with no I/O: asks for the reading once the session is
/// set up, keeps that response's audio, and ends on its `response.done`, an `error`, or the audio cap.
struct RealtimeSpeechCollector: Sendable {
    /// What the connection does next.
    enum Step: Sendable, Equatable {
        case wait
        case send(String)
        /// `outcome` is set: close the connection.
        case finish
    }

    let request: RealtimeSpeechRequest
    let maxSamples: Int
    let context: RealtimeConnectionContext
    private(set) var outcome: Result<[Int16], RealtimeSpeechError>?
    private var requested = false
    private var responseID: String?
    private var samples: [Int16] = []

    init(request: RealtimeSpeechRequest, maxSamples: Int, context: RealtimeConnectionContext) {
        self.request = request
        self.maxSamples = maxSamples
        self.context = context
    }

    /// The first frame of the connection.
    var sessionUpdate: String { request.sessionUpdate.jsonText() }

    mutating func handle(_ output: RealtimeConnectionOutput) -> Step {
        guard outcome == nil else { return .wait }
        switch output {
        case .server(let event): return handle(event)
        case .undecodable(let problem):
            // A lost audio delta would leave a hole in the announcement.
            guard problem.kind == .invalidEvent(type: "response.output_audio.delta") else { return .wait }
            return fail(.malformedAudio)
        }
    }

    private mutating func handle(_ event: ServerEvent) -> Step {
        switch event {
        case .sessionUpdated where !requested:
            requested = true
            return .send(request.responseCreate.jsonText(eventID: RealtimeSpeechRequest.responseEventID))
        case .responseCreated(let response) where requested && responseID == nil:
            responseID = response.id
            return .wait
        case .outputAudioDelta(let delta) where requested && isOurs(delta.responseID):
            let bytes = Base64.decodedLength(of: delta.delta)
            guard bytes % 2 == 0 else { return fail(.malformedAudio) }
            guard samples.count + bytes / 2 <= maxSamples else { return fail(.audioTooLong(limit: .milliseconds(maxSamples / 24))) }
            guard let chunk = Base64.decodeSamples(delta.delta) else { return fail(.malformedAudio) }
            samples += chunk
            return .wait
        case .responseDone(let response) where requested && isOurs(response.id ?? ""):
            guard response.status == "completed" else {
                return fail(.responseNotCompleted(status: response.status, reason: response.statusReason ?? response.statusError))
            }
            guard !samples.isEmpty else { return fail(.noAudio) }
            outcome = .success(samples)
            return .finish
        case .error(let error):
            if let meaning = RealtimeDisconnect.classify(error, context: context) {
                return fail(RealtimeSpeechError(meaning, whileOpening: false))
            }
            return fail(.serverError(code: error.code ?? error.type ?? "unknown", param: error.param))
        default:
            return .wait
        }
    }

    /// The outcome once the connection has ended: ours, or how the connection ended without one.
    func outcome(after disconnect: RealtimeDisconnect) -> Result<[Int16], RealtimeSpeechError> {
        outcome ?? .failure(RealtimeSpeechError(disconnect, whileOpening: false))
    }

    /// Before `response.created` (never seen on a sane server) any response id is taken for ours.
    private func isOurs(_ id: String) -> Bool { responseID == nil || id.isEmpty || id == responseID }

    private mutating func fail(_ error: RealtimeSpeechError) -> Step {
        outcome = .failure(error)
        samples = []
        return .finish
    }
}

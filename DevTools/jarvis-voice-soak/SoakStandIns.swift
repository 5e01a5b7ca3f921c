import TestSupport

/// The service's network peers for the run: the Realtime API, Jarvis (term-llm) and an Icecast-style
/// radio stream, all in-process stand-ins speaking the real protocols. Jarvis and the radio can go
/// away and come back at the same address (fixed ports after the first start).
final class SoakStandIns {
    let realtime: RealtimeStandIn
    private(set) var jarvis: TermLLMStandIn?
    private(set) var media: MediaStandIn?
    let jarvisPort: Int
    let mediaPort: Int
    let jarvisURL: String
    let radioURL: String
    private let radio: MediaStandIn.LiveStream
    static let radioPath = "/soak-radio.mp3"

    init(script: RealtimeStandInScript, radioMP3: [UInt8]) async throws {
        realtime = try await RealtimeStandIn.start(script: script)
        let jarvis = try await TermLLMStandIn.start()
        jarvisPort = jarvis.port
        jarvisURL = jarvis.baseURL
        self.jarvis = jarvis
        var radio = MediaStandIn.LiveStream(audio: radioMP3)
        radio.bytesPerSecond = 16_000  // 128 kbit/s
        radio.titles = ["Soak Radio - Morning Song", "Soak Radio - Kitchen Tune"]
        radio.metaInterval = 16_000
        radio.burstBytes = 64_000
        self.radio = radio
        let media = try await MediaStandIn.start()
        media.route(Self.radioPath, .live(radio))
        mediaPort = media.port
        radioURL = media.url(Self.radioPath)
        self.media = media
    }

    var jarvisIsUp: Bool { jarvis != nil }

    func stopJarvis() async {
        await jarvis?.stop()
        jarvis = nil
    }

    func startJarvis() async throws {
        guard jarvis == nil else { return }
        jarvis = try await TermLLMStandIn.start(port: jarvisPort)
    }

    func stopRadioServer() async {
        await media?.stop()
        media = nil
    }

    func startRadioServer() async throws {
        guard media == nil else { return }
        let media = try await MediaStandIn.start(port: mediaPort)
        media.route(Self.radioPath, .live(radio))
        self.media = media
    }

    /// Requests the radio server (the current instance) has seen.
    var radioRequests: Int { media?.requests.count ?? 0 }

    func shutdown() async {
        await realtime.shutdown()
        await stopJarvis()
        await stopRadioServer()
    }
}

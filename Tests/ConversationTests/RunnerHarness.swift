import AudioCore
import Basics
import Glibc
import Jarvis
import Realtime
import Synchronization
import TestProcess
import TestSupport
import Testing

@testable import Conversation

/// A `ConversationRunner` wired to a real `MixerConversationAudio` (48 kHz stereo mixer, no device: the
/// test renders it), a transport of the test's choice and a tool registry, with LED/metrics hooks and
/// captured logs.
final class RunnerHarness: Sendable {
    static let deviceFormat = AudioFormat(sampleRate: 48_000, channels: 2)

    let runner: ConversationRunner
    let audio: MixerConversationAudio
    let mixer: Mixer
    let captureRing: SPSCRing<Int16>
    let logs = LogCapture()
    let leds = Locked<[LEDPattern]>([])
    let turns = Locked<[TurnMetrics]>([])
    let mediaStops = Locked(0)
    let deviceDelay = Locked(0)
    /// Everything rendered so far (device format).
    private let rendered = Locked<[Int16]>([])
    private let runTask = Locked<Task<Void, any Error>?>(nil)
    private let player = Locked<Task<Void, Never>?>(nil)

    /// Short timers, except the connect timeout (30 s; the product's 10 s), the quiet period (30 s; the
    /// product's 10 s; at 5 s a CI run on 2 cores ended two loopback conversations before the starved
    /// stand-in's VAD had heard the user's words, which it acknowledged 3.5 s late), and the watchdogs of
    /// the answer, the speech and a tool (60 s; the product's 15, 8 and 90 s): under the full suite on 2
    /// cores a loopback turn that takes 0.2 s alone takes 25-45 s (every test starts at once and the cores
    /// are busy throughout), so any step of it may stall for many seconds; at 10 s the speaking watchdog
    /// ended a `say` whose speech was still to come. Here they only catch a hang; the tests of these
    /// timers run them on a manual clock.
    static func fastEngine(tools: [FunctionTool] = [AskJarvisTool.definition.functionTool]) -> ConversationConfiguration {
        ConversationConfiguration(
            tools: tools, connectTimeout: .seconds(30), quietPeriod: .seconds(30), userSpeakingLimit: .seconds(10),
            processingTimeout: .seconds(60), speakingWatchdog: .seconds(60), toolTimeout: .seconds(60),
            errorHold: .milliseconds(300))
    }

    init(
        transport: any RealtimeTransport, tools: ToolRegistry, jarvis: (any JarvisAsking)?,
        engine: ConversationConfiguration = RunnerHarness.fastEngine(), clock: RunnerClock = .continuous,
        tickInterval: Duration = .milliseconds(10), logTranscripts: Bool = false, ducking: MediaDuckingControl? = nil,
        earcons: @escaping @Sendable (Earcon) -> [Int16]? = RunnerHarness.testEarcons
    ) throws {
        mixer = Mixer(configuration: Mixer.Configuration(format: Self.deviceFormat))
        captureRing = SPSCRing(capacity: 24_000 * 4, zero: 0)
        let delay = deviceDelay
        audio = try MixerConversationAudio(
            mixer: mixer, captureRing: captureRing, earcons: earcons, deviceDelayFrames: { delay.withLock { $0 } })
        let leds = leds
        let turns = turns
        let mediaStops = mediaStops
        let hooks = ConversationHooks(
            setLED: { pattern in leds.withLock { $0.append(pattern) } },
            stopMedia: { mediaStops.withLock { $0 += 1 } },
            turnCompleted: { metrics in turns.withLock { $0.append(metrics) } })
        let configuration = ConversationRunnerConfiguration(
            engine: engine, tickInterval: tickInterval, reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(100), jitter: 0.25),
            logTranscripts: logTranscripts)
        runner = ConversationRunner(
            configuration: configuration, transport: transport, audio: audio, tools: tools, jarvis: jarvis, hooks: hooks,
            ducking: ducking, clock: clock, logger: logs.logger())
    }

    /// A 100 ms 1 kHz tone per earcon (24 kHz mono), quiet enough to tell apart from speech.
    static let testEarcons: @Sendable (Earcon) -> [Int16]? = { _ in
        (0..<2_400).map { Int16(2_000 * sin(Double($0) * 2 * .pi * 1_000 / 24_000)) }
    }

    func start() {
        let runner = runner
        runTask.withLock { $0 = Task { try await runner.run() } }
    }

    /// Graceful shutdown; waits for `run()` to return.
    func stop() async throws {
        player.withLock { $0 }?.cancel()
        runner.shutdown()
        try await runTask.withLock { $0 }?.value
    }

    // MARK: playback ("the device")

    /// Renders `milliseconds` of output now (as the playback thread would).
    func render(milliseconds: Int) {
        let frames = Self.deviceFormat.frames(milliseconds: milliseconds)
        var buffer = [Int16](repeating: 0, count: frames * Self.deviceFormat.channels)
        buffer.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
        rendered.withLock { $0.append(contentsOf: buffer) }
    }

    /// Renders continuously in 10 ms periods, `speed` of them every 10 ms (faster than real time).
    func startPlayback(speed: Int = 4) {
        let harness = self
        player.withLock {
            $0?.cancel()
            $0 = Task {
                while !Task.isCancelled {
                    for _ in 0..<max(1, speed) { harness.render(milliseconds: 10) }
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
        }
    }

    func stopPlayback() {
        player.withLock {
            $0?.cancel()
            $0 = nil
        }
    }

    var renderedOutput: [Int16] { rendered.withLock { $0 } }

    /// Left channel of the output, decimated back to 24 kHz (every second frame of 48 kHz).
    var renderedLeft24k: [Int16] {
        let output = renderedOutput
        return stride(from: 0, to: output.count - 1, by: 4).map { output[$0] }
    }

    // MARK: microphone

    /// Pushes mic audio (24 kHz mono) into the capture ring, as the capture chain would. Waits for room
    /// without blocking a thread: the runner that drains the ring needs one of the few pool threads.
    func speak(_ samples: [Int16]) async {
        var offset = 0
        _ = await waitUntil(timeout: .seconds(60), interval: .milliseconds(2)) {
            offset += samples[offset...].withUnsafeBufferPointer { captureRing.write($0) }
            return offset == samples.count
        }
    }

    // MARK: observations

    var ledPatterns: [LEDPattern] { leds.withLock { $0 } }
    var completedTurns: [TurnMetrics] { turns.withLock { $0 } }

    /// Waits until the loop has handled `count` more ticks (each polls the microphone, sends uplink audio and
    /// reports playback): what "nothing more happened" means for the loop, however slow the machine.
    func waitForTicks(_ count: Int = 3, sourceLocation: SourceLocation = #_sourceLocation) async {
        let target = runner.ticksHandled.load(ordering: .relaxed) + count
        let handled = await waitUntil { runner.ticksHandled.load(ordering: .relaxed) >= target }
        #expect(handled, "the runner's loop stopped ticking", sourceLocation: sourceLocation)
    }

    func waitForState(_ state: ConversationState, timeout: Duration = hangTimeout, sourceLocation: SourceLocation = #_sourceLocation) async {
        let reached = await waitUntil(timeout: timeout) { self.runner.state == state }
        #expect(reached, "state \(runner.state.rawValue), wanted \(state.rawValue)", sourceLocation: sourceLocation)
    }
}

/// A `Mutex` in a class, so closures can share it.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// Fake Jarvis for tests that don't need the HTTP stand-in.
actor ScriptedJarvis: JarvisAsking {
    var questions: [String] = []
    var resets = 0
    var cancelled = 0
    var sessionID: String? = "20261122-053000-0123456789abcdef"
    var delay: Duration = .zero
    var answer = "It is sunny."

    func set(delay: Duration) { self.delay = delay }

    func ask(_ query: String) async -> JarvisAnswer {
        questions.append(query)
        if delay > .zero {
            do {
                try await Task.sleep(for: delay)
            } catch {
                cancelled += 1
                return JarvisAnswer(spokenText: "", failure: .cancelled, rawText: "")
            }
        }
        return JarvisAnswer(spokenText: answer, failure: nil, rawText: answer)
    }

    func resetSession() async {
        resets += 1
        sessionID = nil
    }

    func currentSessionID() async -> String? { sessionID }
}

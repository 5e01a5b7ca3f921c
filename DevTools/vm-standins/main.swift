import ALSATestbed
import Basics
import Glibc
import Realtime
import TestProcess
import TestSupport

// Dev-only (scripts/vm-test; not part of the shipped package): starts the in-process Realtime and
// term-llm (Jarvis) stand-ins on 127.0.0.1 and keeps them up for the test VM, which reaches them
// over QEMU's user-mode network. Speaks the question (16 kHz, for the guest to play into the
// loopback card's capture side) and the answer (24 kHz, what the stand-in Realtime API streams
// back) with espeak-ng + sox, then writes into DIR:
//   question.raw     S16_LE mono 16 kHz
//   standins.env     REALTIME_PORT JARVIS_PORT JARVIS_BASE_PATH OPENAI_KEY JARVIS_TOKEN (shell syntax)
//   standins.report  what the stand-ins saw so far (key=value lines, rewritten every 200 ms)
// usage: vm-standins DIR [LIFETIME_SECONDS]   (exits after LIFETIME_SECONDS, default 1800, or on SIGTERM)

func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = "vm-standins: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, arguments.count <= 3, let lifetime = Int(arguments.count == 3 ? arguments[2] : "1800") else {
    fail("usage: vm-standins DIR [LIFETIME_SECONDS]", status: 64)
}
let directory = arguments[1]
let question = "What is on my calendar today?"
// Long enough (about 11 s) that check 7's tap lands inside it even when the emulated machine polls late.
let answer =
    "You have two things today: the dentist at ten, and dinner with Sam at seven. Tomorrow is free until "
    + "the afternoon, when the plumber comes at three, so remember to leave the side door open for him."

func write(_ text: String, to path: String, mode: mode_t = 0o644) {
    do {
        try TestFiles.write(Array(text.utf8), to: path + ".tmp")
    } catch {
        fail("\(error)")
    }
    chmod(path + ".tmp", mode)
    rename(path + ".tmp", path)
}

let answerAudio: [Int16]
do {
    _ = try await SpeechSynthesis.speak(question, rate: 16_000, directory: directory, name: "question")
    answerAudio = try await SpeechSynthesis.speak(answer, rate: 24_000, directory: directory, name: "answer")
} catch {
    fail("\(error)")
}

var script = RealtimeStandInScript()
script.apiKey = "sk-vmtest-\(UInt64.random(in: 1 << 40..<1 << 60))"
script.functionArguments = JSONValue.object(["query": .string(question)]).jsonText
script.answerAudio = answerAudio
script.answerTranscript = answer
var options = TermLLMStandIn.Options()
options.token = "jt-vmtest-\(UInt64.random(in: 1 << 40..<1 << 60))"

let realtime = try await RealtimeStandIn.start(script: script)
let jarvis = try await TermLLMStandIn.start(options: options)
jarvis.setPlanner { _ in .answer(answer) }

write(
    """
    REALTIME_PORT=\(realtime.port)
    JARVIS_PORT=\(jarvis.port)
    JARVIS_BASE_PATH=\(options.basePath)
    OPENAI_KEY=\(script.apiKey)
    JARVIS_TOKEN=\(options.token)

    """, to: directory + "/standins.env", mode: 0o600)
print("vm-standins: Realtime on 127.0.0.1:\(realtime.port), Jarvis on 127.0.0.1:\(jarvis.port)\(options.basePath)")
fflush(nil)

let end = ContinuousClock.now + .seconds(lifetime)
while ContinuousClock.now < end {
    let appends = realtime.clientEvents(ofType: "input_audio_buffer.append").count
    write(
        """
        realtime_connections=\(realtime.connectionCount)
        realtime_auth_failures=\(realtime.authorizationFailures)
        realtime_audio_appends=\(appends)
        realtime_function_outputs=\(realtime.functionCallOutputs.count)
        realtime_answer_deltas=\(realtime.sentAudioDeltas)
        realtime_rejections=\(realtime.rejections.count)
        jarvis_requests=\(jarvis.recordedRequests.count)
        jarvis_completed=\(jarvis.completedRuns)

        """, to: directory + "/standins.report")
    try? await Task.sleep(for: .milliseconds(200))
}
await realtime.shutdown()
await jarvis.stop()

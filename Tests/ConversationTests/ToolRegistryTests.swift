import Basics
import Jarvis
import Media
import Realtime
import Synchronization
import Testing

@testable import Conversation

final class FakeJarvis: JarvisAsking {
    let queries = Mutex<[String]>([])
    func ask(_ query: String) async -> JarvisAnswer {
        queries.withLock { $0.append(query) }
        return JarvisAnswer(spokenText: "Jarvis says: \(query)", failure: nil, rawText: query)
    }
    func resetSession() async {}
    func currentSessionID() async -> String? { nil }
}

struct SetVolumeTool: Tool {
    let definition = ToolDefinition(
        name: "set_volume", description: "Set the media volume.",
        parameters: [
            .number("level", "0.0 to 1.0", minimum: 0, maximum: 1),
            .string("curve", "fade shape", allowed: ["linear", "smooth"], required: false)
        ])
    func run(_ arguments: ToolArguments) async -> ToolOutput {
        .success(#"{"volume":\#(arguments.number("level") ?? -1),"curve":"\#(arguments.string("curve") ?? "none")"}"#)
    }
}

@Suite struct ToolRegistryTests {
    @Test func askJarvisDefinitionIsTheSeedsToolVerbatim() throws {
        let seed = try #require(
            JSONValue.parse(
                #"""
                {
                  "type": "function",
                  "name": "ask_jarvis",
                  "description": "Routes any meaningful user request to the Jarvis AI agent backend running on Sam's homelab. Use this tool for EVERY real question, task, or request. Do not attempt to answer from your own knowledge.",
                  "parameters": {
                    "type": "object",
                    "properties": {
                      "query": {
                        "type": "string",
                        "description": "The user's complete request in natural language, including all relevant context they stated (names, dates, quantities, locations). Do not abbreviate or reframe."
                      }
                    },
                    "required": ["query"]
                  }
                }
                """#))
        let encoded = try #require(
            JSONValue.parse(ClientEvent.sessionUpdate(SessionConfiguration(tools: [AskJarvisTool.definition.functionTool])).jsonText()))
        #expect(encoded["session"]?["tools"] == .array([seed]))
    }

    @Test func dispatchesValidCalls() async {
        let jarvis = FakeJarvis()
        let registry = ToolRegistry([AskJarvisTool(jarvis: jarvis), SetVolumeTool()])
        #expect(registry.functionTools.map(\.name) == ["ask_jarvis", "set_volume"])
        let answer = await registry.dispatch(name: "ask_jarvis", arguments: #"{"query":"What's on my calendar?","extra":1}"#)
        #expect(answer == .success("Jarvis says: What's on my calendar?"))
        #expect(jarvis.queries.withLock { $0 } == ["What's on my calendar?"])
        #expect(await registry.dispatch(name: "set_volume", arguments: #"{"level":0.4}"#) == .success(#"{"volume":0.4,"curve":"none"}"#))
        #expect(await registry.dispatch(name: "set_volume", arguments: #"{"level":1,"curve":"smooth"}"#).succeeded)
    }

    @Test func unknownToolIsAnErrorOutput() async throws {
        let registry = ToolRegistry([AskJarvisTool(jarvis: FakeJarvis())])
        let output = await registry.dispatch(name: "launch_rockets", arguments: "{}")
        #expect(!output.succeeded)
        let json = try #require(JSONValue.parse(output.text), "error outputs are JSON strings")
        #expect(json["error"]?.stringValue?.contains("unknown tool \"launch_rockets\"") == true)
        #expect(json["error"]?.stringValue?.contains("ask_jarvis") == true)
    }

    @Test(arguments: [
        ("not json", "not valid JSON"),
        ("[1]", "must be a JSON object"),
        ("{}", "\"query\" is missing"),
        (#"{"query":null}"#, "\"query\" is missing"),
        (#"{"query":42}"#, "\"query\" must be a string"),
        (#"{"query":"   "}"#, "\"query\" is empty")
    ])
    func badArgumentsAreErrorOutputs(arguments: String, message: String) async throws {
        let jarvis = FakeJarvis()
        let registry = ToolRegistry([AskJarvisTool(jarvis: jarvis)])
        let output = await registry.dispatch(name: "ask_jarvis", arguments: arguments)
        #expect(!output.succeeded)
        let error = try #require(JSONValue.parse(output.text)?["error"]?.stringValue)
        #expect(error.contains(message), "\(error)")
        #expect(jarvis.queries.withLock { $0 }.isEmpty, "Jarvis is not called with bad arguments")
    }

    @Test func rangeAndEnumValidation() async {
        let registry = ToolRegistry([SetVolumeTool()])
        #expect(await registry.dispatch(name: "set_volume", arguments: #"{"level":1.5}"#).text.contains("out of range"))
        #expect(await registry.dispatch(name: "set_volume", arguments: #"{"level":"loud"}"#).text.contains("must be a number"))
        #expect(
            await registry.dispatch(name: "set_volume", arguments: #"{"level":0.2,"curve":"wobbly"}"#).text.contains("must be one of linear, smooth"))
        let schema = SetVolumeTool().definition.schema
        #expect(schema["properties"]?["level"] == ["type": "number", "minimum": 0, "maximum": 1, "description": "0.0 to 1.0"])
        #expect(schema["properties"]?["curve"]?["enum"] == ["linear", "smooth"])
        #expect(schema["required"] == ["level"])
    }

    @Test func laterRegistrationReplacesByName() {
        var registry = ToolRegistry([AskJarvisTool(jarvis: FakeJarvis())])
        registry.register(SetVolumeTool())
        registry.register(SetVolumeTool())
        #expect(registry.definitions.map(\.name) == ["ask_jarvis", "set_volume"])
    }
}

@Suite struct ToolRegistryInstructionsTests {
    /// The thin-router rules, built from the service's tools (each tool brings its own text).
    @Test func instructionsCoverTheThinRouterRules() {
        var registry = ToolRegistry([AskJarvisTool(jarvis: FakeJarvis())])
        for tool in MediaTools.make(player: FakeMediaPlayer(), ducking: MediaDuckingControl()) { registry.register(tool) }
        let text = registry.instructions(modelSpeaksPreambles: false)
        #expect(text.hasPrefix(AssistantPrompt.preamble) && text.hasSuffix(AssistantPrompt.closing))
        for phrase in ["ask_jarvis", "Never answer from your own knowledge", "Let me ask Jarvis.", "never invent a URL", "never the same twice"] {
            #expect(text.contains(phrase), "\(phrase)")
        }
        // Media: Jarvis curates ({type, title, url, reason} → play_audio), the device performs; simple controls are local.
        for phrase in [
            #"{"type", "title", "url", "reason"}"#, "call play_audio with exactly that url, title and type",
            "introduce the pick in one short sentence", "without asking Jarvis", "pause_playback", "get_now_playing",
            "set_volume", "skip_track", "duck_audio", "System messages about media", "stream_title"
        ] {
            #expect(text.contains(phrase), "\(phrase)")
        }
        for name in registry.quietToolNames { #expect(text.contains("- \(name): "), "\(name) is listed as a quick local tool") }
        #expect(!text.contains("- ask_jarvis: "), "ask_jarvis is not quick")
    }

    /// A reasoning model speaks its own preamble: told to say a filler as well, the owner would hear two.
    @Test func aModelWithPreamblesIsNotToldToSayAFiller() throws {
        let registry = ToolRegistry([AskJarvisTool(jarvis: FakeJarvis())])
        let withPreambles = registry.instructions(modelSpeaksPreambles: true)
        let without = registry.instructions(modelSpeaksPreambles: false)
        let filler = try #require(AskJarvisTool.definition.acknowledgement)
        #expect(without.contains(filler) && !withPreambles.contains(filler))
        #expect(withPreambles.contains(AssistantPrompt.preambleRule) && !without.contains(AssistantPrompt.preambleRule))
        #expect(!withPreambles.contains("Let me ask Jarvis."))
    }

    @Test func aRegistryWithoutQuickToolsHasNoQuickSection() {
        let text = ToolRegistry([AskJarvisTool(jarvis: FakeJarvis())]).instructions(modelSpeaksPreambles: true)
        #expect(!text.contains(AssistantPrompt.quickToolsHeading))
        #expect(ToolRegistry([AskJarvisTool(jarvis: FakeJarvis())]).quietToolNames.isEmpty)
    }
}

import Basics
import Testing

@testable import Realtime

/// Client events must encode to exactly the GA shapes in reference/realtime-protocol.md §2.2 and §3.
@Suite struct ClientEventTests {
    func expectEncodes(_ event: ClientEvent, to literal: String, eventID: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let encoded = JSONValue.parse(event.jsonText(eventID: eventID))
        let expected = JSONValue.parse(literal)
        #expect(expected != nil, "reference literal must parse", sourceLocation: sourceLocation)
        #expect(encoded == expected, "\(event.jsonText(eventID: eventID))", sourceLocation: sourceLocation)
    }

    @Test func bufferEvents() {
        expectEncodes(.inputAudioBufferAppend(audio: "AAEC"), to: #"{"type":"input_audio_buffer.append","audio":"AAEC"}"#)
        expectEncodes(.inputAudioBufferCommit, to: #"{"type":"input_audio_buffer.commit"}"#)
        expectEncodes(.inputAudioBufferClear, to: #"{"type":"input_audio_buffer.clear"}"#)
    }

    @Test func conversationItems() {
        expectEncodes(
            .conversationItemCreate(.message(role: .user, text: "Set a timer for ten minutes.")),
            to:
                #"{"type":"conversation.item.create","item":{"type":"message","role":"user","content":[{"type":"input_text","text":"Set a timer for ten minutes."}]}}"#
        )
        expectEncodes(
            .conversationItemCreate(.message(role: .system, text: "The user is now in the kitchen.")),
            to:
                #"{"type":"conversation.item.create","item":{"type":"message","role":"system","content":[{"type":"input_text","text":"The user is now in the kitchen."}]}}"#
        )
        expectEncodes(
            .conversationItemCreate(.functionCallOutput(callID: "call_sHlR7iaFwQ2YQOqm", output: #"{"ok":true,"timer_id":"t1"}"#)),
            to:
                #"{"type":"conversation.item.create","item":{"type":"function_call_output","call_id":"call_sHlR7iaFwQ2YQOqm","output":"{\"ok\":true,\"timer_id\":\"t1\"}"}}"#
        )
        expectEncodes(
            .conversationItemTruncate(itemID: "item_CCXHwGjjDUfOXbiySlK7i", contentIndex: 0, audioEndMs: 1480),
            to: #"{"type":"conversation.item.truncate","item_id":"item_CCXHwGjjDUfOXbiySlK7i","content_index":0,"audio_end_ms":1480}"#)
    }

    @Test func responses() {
        expectEncodes(.responseCreate(nil), to: #"{"type":"response.create"}"#)
        expectEncodes(.responseCancel(responseID: nil), to: #"{"type":"response.cancel"}"#)
        expectEncodes(
            .responseCreate(ResponseOptions(instructions: "Say hi.", toolChoice: .noTools)),
            to: #"{"type":"response.create","response":{"instructions":"Say hi.","tool_choice":"none"}}"#)
        expectEncodes(
            .responseCancel(responseID: "resp_1"), to: #"{"type":"response.cancel","response_id":"resp_1","event_id":"e1"}"#,
            eventID: "e1")
        expectEncodes(.conversationItemDelete(itemID: "item_7"), to: #"{"type":"conversation.item.delete","item_id":"item_7"}"#)
    }

    @Test func sessionUpdateVariants() {
        expectEncodes(
            .sessionUpdate(SessionConfiguration(audio: .init(input: .init(turnDetection: .semanticVAD(.init(eagerness: .low)))))),
            to:
                #"{"type":"session.update","session":{"type":"realtime","audio":{"input":{"turn_detection":{"type":"semantic_vad","eagerness":"low","create_response":true,"interrupt_response":true}}}}}"#
        )
        expectEncodes(
            .sessionUpdate(SessionConfiguration(audio: .init(input: .init(turnDetection: .disabled)))),
            to: #"{"type":"session.update","session":{"type":"realtime","audio":{"input":{"turn_detection":null}}}}"#)
        expectEncodes(
            .sessionUpdate(SessionConfiguration(audio: .init(input: .init(format: .pcmu), output: .init(format: .pcma)))),
            to:
                #"{"type":"session.update","session":{"type":"realtime","audio":{"input":{"format":{"type":"audio/pcmu"}},"output":{"format":{"type":"audio/pcma"}}}}}"#
        )
        expectEncodes(
            .sessionUpdate(SessionConfiguration(toolChoice: .function(name: "set_timer"))),
            to: #"{"type":"session.update","session":{"type":"realtime","tool_choice":{"type":"function","name":"set_timer"}}}"#)
    }

    @Test func completeSessionUpdateFromReference() {
        let tool = FunctionTool(
            name: "set_timer", description: "Start a countdown timer. Call when the user asks for a timer.",
            parameters: [
                "type": "object",
                "properties": [
                    "seconds": ["type": "integer", "minimum": 1, "description": "Duration in seconds"],
                    "label": ["type": "string"]
                ],
                "required": ["seconds"], "additionalProperties": false
            ])
        let session = SessionConfiguration(
            instructions: "You are a concise voice assistant for a kitchen appliance. Answer in one or two short sentences. Use tools for timers.",
            outputModalities: ["audio"],
            audio: AudioConfiguration(
                input: AudioInputConfiguration(
                    format: .pcm24k,
                    turnDetection: .serverVAD(.init(threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500)),
                    transcription: .enabled(model: "gpt-4o-mini-transcribe", language: "en", prompt: nil),
                    noiseReduction: .farField),
                output: AudioOutputConfiguration(format: .pcm24k, voice: "marin", speed: 1.0)),
            tools: [tool], toolChoice: .auto, maxOutputTokens: 1024)
        // The reference also sets "truncation" and "tracing", which this appliance leaves at their defaults.
        expectEncodes(
            .sessionUpdate(session),
            to: """
                {"type": "session.update",
                 "session": {
                   "type": "realtime",
                   "instructions": "You are a concise voice assistant for a kitchen appliance. Answer in one or two short sentences. Use tools for timers.",
                   "output_modalities": ["audio"],
                   "audio": {
                     "input": {
                       "format": {"type": "audio/pcm", "rate": 24000},
                       "noise_reduction": {"type": "far_field"},
                       "transcription": {"model": "gpt-4o-mini-transcribe", "language": "en"},
                       "turn_detection": {"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300,
                                          "silence_duration_ms": 500, "idle_timeout_ms": null,
                                          "create_response": true, "interrupt_response": true}
                     },
                     "output": {"format": {"type": "audio/pcm", "rate": 24000}, "voice": "marin", "speed": 1.0}
                   },
                   "tools": [{"type": "function", "name": "set_timer",
                              "description": "Start a countdown timer. Call when the user asks for a timer.",
                              "parameters": {"type": "object",
                                             "properties": {"seconds": {"type": "integer", "minimum": 1, "description": "Duration in seconds"},
                                                            "label": {"type": "string"}},
                                             "required": ["seconds"], "additionalProperties": false}}],
                   "tool_choice": "auto",
                   "max_output_tokens": 1024}}
                """)
    }

    @Test func settingsBuilderUsesGAShapeAndRouterPrompt() throws {
        let settings = RealtimeSessionSettings(
            voice: "cedar", handsFreeDetection: .server(threshold: 0.6, prefixPaddingMs: 250, silenceDurationMs: 700),
            instructions: "Route every request through ask_jarvis.")
        let tool = FunctionTool(name: "ask_jarvis", description: "d", parameters: ["type": "object"])
        let handsFree = try #require(JSONValue.parse(settings.sessionUpdate(tools: [tool], turnTaking: .handsFree).jsonText()))
        let session = try #require(handsFree["session"])
        #expect(session["type"] == "realtime")
        #expect(session["voice"] == nil && session["turn_detection"] == nil && session["modalities"] == nil)
        #expect(session["audio"]?["output"]?["voice"] == "cedar")
        #expect(session["audio"]?["input"]?["format"] == ["type": "audio/pcm", "rate": 24000])
        #expect(
            session["audio"]?["input"]?["turn_detection"] == [
                "type": "server_vad", "threshold": 0.6, "prefix_padding_ms": 250, "silence_duration_ms": 700,
                "idle_timeout_ms": nil, "create_response": false, "interrupt_response": false
            ], "barge-in and answering are the appliance's decisions (echo must not interrupt or be answered)")
        #expect(session["audio"]?["input"]?["transcription"] == .null)
        #expect(session["tools"]?.jsonText.contains("ask_jarvis") == true)
        #expect(session["instructions"] == "Route every request through ask_jarvis.")

        let ptt = try #require(JSONValue.parse(settings.sessionUpdate(tools: [], turnTaking: .pushToTalk).jsonText()))
        #expect(ptt["session"]?["audio"]?["input"]?["turn_detection"] == .null)

        let semantic = RealtimeSessionSettings(transcriptionModel: "gpt-4o-mini-transcribe", transcriptionLanguage: "en")
        let update = try #require(JSONValue.parse(semantic.turnTakingUpdate(.handsFree).jsonText()))
        #expect(
            update == [
                "type": "session.update",
                "session": [
                    "type": "realtime",
                    "audio": [
                        "input": [
                            "turn_detection": [
                                "type": "semantic_vad", "eagerness": "auto", "create_response": false, "interrupt_response": false
                            ]
                        ]
                    ]
                ]
            ])
        let full = try #require(JSONValue.parse(semantic.sessionUpdate(tools: [], turnTaking: .handsFree).jsonText()))
        #expect(full["session"]?["audio"]?["input"]?["transcription"] == ["model": "gpt-4o-mini-transcribe", "language": "en"])
    }
}

import Testing

@testable import Realtime

/// Server frames copied from reference/realtime-protocol.md (real GA captures where it has them).
@Suite struct ServerEventTests {
    func decode(_ text: String) -> ServerEvent? {
        var decoder = ServerEventDecoder()
        return try? decoder.decode(text).get()
    }

    @Test func sessionCreated() throws {
        let event = try #require(
            decode(
                #"""
                {"type":"session.created","event_id":"event_Ct1OVqJmiaDhg4nkh3JWr","session":{"type":"realtime","object":"realtime.session",
                 "id":"sess_Ct1OVZ9vNW62W3cUpSCqj","model":"gpt-realtime","output_modalities":["audio"],"instructions":"Your knowledge cutoff is 2023-10. …",
                 "tools":[],"tool_choice":"auto","max_output_tokens":"inf","tracing":null,"truncation":"auto","prompt":null,"expires_at":1767233035,
                 "audio":{"input":{"format":{"type":"audio/pcm","rate":24000},"transcription":null,"noise_reduction":null,
                   "turn_detection":{"type":"server_vad","threshold":0.5,"prefix_padding_ms":300,"silence_duration_ms":200,"idle_timeout_ms":null,
                                     "create_response":true,"interrupt_response":true}},
                  "output":{"format":{"type":"audio/pcm","rate":24000},"voice":"alloy","speed":1.0}},"include":null}}
                """#))
        #expect(
            event
                == .sessionCreated(
                    SessionInfo(
                        id: "sess_Ct1OVZ9vNW62W3cUpSCqj", model: "gpt-realtime", expiresAt: 1_767_233_035, turnDetectionType: "server_vad",
                        voice: "alloy")))
    }

    @Test func errors() throws {
        let event = try #require(
            decode(
                #"""
                {"type":"error","event_id":"event_CdulTJIOI2YjBMxYUiRzZ","error":{"type":"invalid_request_error",
                 "code":"conversation_already_has_active_response","message":"Conversation already has an active response in progress: resp_CdulSkgwnvcvHPA8FsqBM. Wait until the response is finished before creating a new one.","param":null,"event_id":null}}
                """#))
        guard case .error(let error) = event else {
            Issue.record("not an error: \(event)")
            return
        }
        #expect(error.code == "conversation_already_has_active_response")
        #expect(error.isBenign)
        #expect(error.eventID == nil)
        let expired = try #require(
            decode(
                #"{"type":"error","event_id":"event_…","error":{"type":"invalid_request_error","code":"session_expired","message":"Your session hit the maximum duration of 60 minutes.","param":null,"event_id":"evt_7"}}"#
            ))
        guard case .error(let second) = expired else {
            Issue.record("not an error")
            return
        }
        #expect(!second.isBenign && second.eventID == "evt_7" && second.message.contains("60 minutes"))
    }

    @Test func inputBufferEvents() {
        #expect(
            decode(#"{"type":"input_audio_buffer.speech_started","event_id":"e","audio_start_ms":11956,"item_id":"U"}"#)
                == .speechStarted(audioStartMs: 11956, itemID: "U"))
        #expect(
            decode(#"{"type":"input_audio_buffer.speech_stopped","event_id":"e","audio_end_ms":14720,"item_id":"U"}"#)
                == .speechStopped(audioEndMs: 14720, itemID: "U"))
        #expect(
            decode(#"{"type":"input_audio_buffer.committed","event_id":"e","previous_item_id":"A0","item_id":"U"}"#)
                == .inputAudioBufferCommitted(itemID: "U", previousItemID: "A0"))
        #expect(
            decode(#"{"type":"input_audio_buffer.committed","event_id":"e","previous_item_id":null,"item_id":"U"}"#)
                == .inputAudioBufferCommitted(itemID: "U", previousItemID: nil))
        #expect(decode(#"{"type":"input_audio_buffer.cleared","event_id":"e"}"#) == .inputAudioBufferCleared)
    }

    @Test func conversationItems() {
        #expect(
            decode(
                #"{"type":"conversation.item.added","event_id":"e","previous_item_id":"A0","item":{"id":"U","object":"realtime.item","type":"message","role":"user","status":"completed","content":[{"type":"input_audio","transcript":null}]}}"#
            )
                == .conversationItemAdded(ItemInfo(id: "U", type: "message", role: "user", status: "completed")))
        #expect(
            decode(
                #"{"type":"conversation.item.done","event_id":"e","item":{"id":"A1","type":"message","role":"assistant","status":"completed","content":[]}}"#
            )
                == .conversationItemDone(ItemInfo(id: "A1", type: "message", role: "assistant", status: "completed")))
        #expect(
            decode(
                #"{"type":"conversation.item.input_audio_transcription.completed","event_id":"e","item_id":"U","content_index":0,"transcript":"what's on my calendar","usage":{"type":"tokens","total_tokens":20}}"#
            )
                == .inputAudioTranscriptionCompleted(itemID: "U", transcript: "what's on my calendar"))
    }

    @Test func responseStream() {
        #expect(
            decode(
                #"{"type":"response.created","event_id":"e","response":{"object":"realtime.response","id":"R","status":"in_progress","status_details":null,"output":[],"conversation_id":"conv_1","output_modalities":["audio"],"max_output_tokens":"inf","audio":{"output":{"format":{"type":"audio/pcm","rate":24000},"voice":"alloy"}},"usage":null,"metadata":null}}"#
            )
                == .responseCreated(ResponseInfo(id: "R", status: "in_progress")))
        #expect(
            decode(
                #"{"type":"response.output_item.added","event_id":"e","response_id":"R","output_index":0,"item":{"id":"A1","type":"message","role":"assistant","status":"in_progress","content":[]}}"#
            )
                == .outputItemAdded(responseID: "R", item: ItemInfo(id: "A1", type: "message", role: "assistant", status: "in_progress")))
        #expect(
            decode(
                #"{"type":"response.output_audio.delta","event_id":"e","response_id":"R","item_id":"A1","output_index":0,"content_index":0,"delta":"AAABAAIA"}"#
            )
                == .outputAudioDelta(AudioDelta(responseID: "R", itemID: "A1", delta: "AAABAAIA")))
        #expect(
            decode(#"{"type":"response.output_audio.done","event_id":"e","response_id":"R","item_id":"A1","output_index":0,"content_index":0}"#)
                == .outputAudioDone(responseID: "R", itemID: "A1"))
        #expect(
            decode(
                #"{"type":"response.output_audio_transcript.delta","event_id":"e","response_id":"R","item_id":"A1","output_index":0,"content_index":0,"delta":"Let me","obfuscation":"xyz"}"#
            )
                == .outputAudioTranscriptDelta(responseID: "R", itemID: "A1", delta: "Let me"))
        #expect(
            decode(
                #"{"type":"response.output_audio_transcript.done","event_id":"e","response_id":"R","item_id":"A1","output_index":0,"content_index":0,"transcript":"Let me ask Jarvis."}"#
            )
                == .outputAudioTranscriptDone(responseID: "R", itemID: "A1", transcript: "Let me ask Jarvis."))
        #expect(
            decode(
                #"{"type":"response.function_call_arguments.delta","event_id":"e","response_id":"R","item_id":"F","output_index":1,"call_id":"call_abc123","delta":"{\"q"}"#
            )
                == .functionCallArgumentsDelta(responseID: "R", callID: "call_abc123", delta: #"{"q"#))
        #expect(
            decode(
                #"{"type":"response.function_call_arguments.done","event_id":"e","response_id":"R","item_id":"F","output_index":1,"call_id":"call_abc123","name":"ask_jarvis","arguments":"{\"query\":\"What is on my calendar tomorrow?\"}"}"#
            )
                == .functionCallArgumentsDone(
                    FunctionCall(
                        responseID: "R", itemID: "F", callID: "call_abc123", name: "ask_jarvis",
                        arguments: #"{"query":"What is on my calendar tomorrow?"}"#)))
        #expect(
            decode(
                #"{"type":"rate_limits.updated","event_id":"e","rate_limits":[{"name":"requests","limit":5000,"remaining":4999,"reset_seconds":0.012},{"name":"tokens","limit":20000,"remaining":15000,"reset_seconds":5.5}]}"#
            )
                == .rateLimitsUpdated([
                    RateLimit(name: "requests", limit: 5000, remaining: 4999, resetSeconds: 0.012),
                    RateLimit(name: "tokens", limit: 20000, remaining: 15000, resetSeconds: 5.5)
                ]))
    }

    @Test func responseDoneWithUsageAndFunctionCall() throws {
        let event = try #require(
            decode(
                #"""
                {"type":"response.done","event_id":"e","response":{"object":"realtime.response","id":"R","status":"completed","status_details":null,
                 "output":[{"id":"A1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_audio","transcript":"One moment."}]},
                           {"id":"F","type":"function_call","status":"completed","name":"ask_jarvis","call_id":"call_abc123","arguments":"{\"query\":\"weather\"}"}],
                 "conversation_id":"conv_1","usage":{"total_tokens":320,"input_tokens":132,"output_tokens":188,
                  "input_token_details":{"text_tokens":59,"audio_tokens":73,"image_tokens":0,"cached_tokens":64,
                                         "cached_tokens_details":{"text_tokens":0,"audio_tokens":64,"image_tokens":0}},
                  "output_token_details":{"text_tokens":41,"audio_tokens":147}}}}
                """#))
        guard case .responseDone(let response) = event else {
            Issue.record("\(event)")
            return
        }
        #expect(response.status == "completed")
        #expect(
            response.functionCalls == [
                FunctionCall(responseID: "R", itemID: "F", callID: "call_abc123", name: "ask_jarvis", arguments: #"{"query":"weather"}"#)
            ])
        let usage = try #require(response.usage)
        #expect(usage.totalTokens == 320 && usage.inputTokens == 132 && usage.outputTokens == 188)
        #expect(usage.inputText == 59 && usage.inputAudio == 73 && usage.cachedTokens == 64 && usage.cachedAudio == 64)
        #expect(usage.outputText == 41 && usage.outputAudio == 147)
        // Worked example of reference §9.
        #expect(abs(RealtimePricing.full.cost(of: usage) - 0.010614) < 0.0000005)
        #expect(abs(RealtimePricing.mini.cost(of: usage) - 0.003183) < 0.0000005)
        #expect(RealtimeModels.pricing(for: "gpt-realtime-mini-2025-12-15") == .mini)
    }

    @Test func cancelledResponseDone() {
        #expect(
            decode(
                #"{"type":"response.done","event_id":"e","response":{"id":"R","status":"cancelled","status_details":{"type":"cancelled","reason":"turn_detected"},"output":[],"usage":null}}"#
            )
                == .responseDone(ResponseInfo(id: "R", status: "cancelled", statusReason: "turn_detected")))
    }

    @Test func unknownEventsAreCountedNotFatal() {
        var decoder = ServerEventDecoder()
        for type in [
            "conversation.created", "output_audio_buffer.started", "mcp_list_tools.completed", "response.audio.delta", "output_audio_buffer.started"
        ] {
            #expect((try? decoder.decode(#"{"type":"\#(type)","event_id":"e","whatever":{"nested":[1,2]}}"#).get()) == .unknown(type: type))
        }
        #expect(decoder.unknownCount == 5)
        #expect(decoder.unknownEventCounts["output_audio_buffer.started"] == 2)
        #expect(decoder.malformedCount == 0)
    }

    @Test func malformedFramesAreErrorValues() {
        var decoder = ServerEventDecoder()
        let cases: [(String, RealtimeDecodingError.Kind)] = [
            ("not json", .invalidJSON),
            ("", .invalidJSON),
            (#"{"no_type":1}"#, .invalidJSON),
            (#"{"type":42}"#, .invalidJSON),
            (#"[1,2,3]"#, .invalidJSON),
            (#"{"type":"response.output_audio.delta","response_id":"R","item_id":"A"}"#, .invalidEvent(type: "response.output_audio.delta")),
            (#"{"type":"response.function_call_arguments.done","name":"ask_jarvis"}"#, .invalidEvent(type: "response.function_call_arguments.done")),
            (#"{"type":"session.created","session":"oops"}"#, .invalidEvent(type: "session.created"))
        ]
        for (text, kind) in cases {
            switch decoder.decode(text) {
            case .success(let event): Issue.record("decoded \(event) from \(text)")
            case .failure(let error):
                #expect(error.kind == kind, "\(text)")
                #expect(!error.description.isEmpty)
            }
        }
        #expect(decoder.malformedCount == cases.count)
    }
}

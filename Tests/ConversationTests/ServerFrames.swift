import Basics
import Realtime

/// GA server frames as the Realtime API sends them (shapes from captured wire frames).
enum ServerFrames {
    static func quoted(_ text: String) -> String { JSONValue.string(text).jsonText }

    static func sessionCreated(_ id: String = "sess_1") -> String {
        #"{"type":"session.created","event_id":"event_1","session":{"type":"realtime","object":"realtime.session","id":"\#(id)","model":"gpt-realtime-2.1-mini","output_modalities":["audio"],"instructions":"...","tools":[],"tool_choice":"auto","max_output_tokens":"inf","tracing":null,"prompt":null,"expires_at":1756324625,"audio":{"input":{"format":{"type":"audio/pcm","rate":24000},"transcription":null,"noise_reduction":null,"turn_detection":{"type":"server_vad","threshold":0.5,"prefix_padding_ms":300,"silence_duration_ms":200,"idle_timeout_ms":null,"create_response":true,"interrupt_response":true}},"output":{"format":{"type":"audio/pcm","rate":24000},"voice":"marin","speed":1.0}},"include":null}}"#
    }

    static let sessionUpdated =
        #"{"type":"session.updated","event_id":"event_2","session":{"type":"realtime","object":"realtime.session","id":"sess_1","model":"gpt-realtime"}}"#

    static func speechStarted(_ itemID: String, ms: Int = 100) -> String {
        #"{"type":"input_audio_buffer.speech_started","event_id":"e","audio_start_ms":\#(ms),"item_id":"\#(itemID)"}"#
    }

    static func speechStopped(_ itemID: String, ms: Int = 900) -> String {
        #"{"type":"input_audio_buffer.speech_stopped","event_id":"e","audio_end_ms":\#(ms),"item_id":"\#(itemID)"}"#
    }

    static func committed(_ itemID: String) -> String {
        #"{"type":"input_audio_buffer.committed","event_id":"e","previous_item_id":null,"item_id":"\#(itemID)"}"#
    }

    static func responseCreated(_ id: String) -> String {
        #"{"type":"response.created","event_id":"e","response":{"object":"realtime.response","id":"\#(id)","status":"in_progress","status_details":null,"output":[],"conversation_id":"conv_1","output_modalities":["audio"],"max_output_tokens":"inf","audio":{"output":{"format":{"type":"audio/pcm","rate":24000},"voice":"marin"}},"usage":null,"metadata":null}}"#
    }

    static func audioDelta(_ responseID: String, _ itemID: String, samples: [Int16]) -> String {
        #"{"type":"response.output_audio.delta","event_id":"e","response_id":"\#(responseID)","item_id":"\#(itemID)","output_index":0,"content_index":0,"delta":"\#(Base64.encode(samples: samples))"}"#
    }

    static func audioDone(_ responseID: String, _ itemID: String) -> String {
        #"{"type":"response.output_audio.done","event_id":"e","response_id":"\#(responseID)","item_id":"\#(itemID)","output_index":0,"content_index":0}"#
    }

    static func transcriptDone(_ responseID: String, _ itemID: String, _ text: String) -> String {
        #"{"type":"response.output_audio_transcript.done","event_id":"e","response_id":"\#(responseID)","item_id":"\#(itemID)","output_index":0,"content_index":0,"transcript":\#(quoted(text))}"#
    }

    static func functionCallDone(_ responseID: String, callID: String, query: String) -> String {
        let arguments = JSONValue.object(["query": .string(query)]).jsonText
        return
            #"{"type":"response.function_call_arguments.done","event_id":"e","response_id":"\#(responseID)","item_id":"F_\#(callID)","output_index":1,"call_id":"\#(callID)","name":"ask_jarvis","arguments":\#(quoted(arguments))}"#
    }

    /// A call of any tool by name: `arguments.done` and the `response.done` that carries it.
    static func toolCall(_ responseID: String, callID: String, name: String, arguments: String = "{}") -> [String] {
        let item = #""item_id":"F_\#(callID)","output_index":0,"call_id":"\#(callID)","name":"\#(name)","arguments":\#(quoted(arguments))"#
        return [
            #"{"type":"response.function_call_arguments.done","event_id":"e","response_id":"\#(responseID)",\#(item)}"#,
            #"{"type":"response.done","event_id":"e","response":{"object":"realtime.response","id":"\#(responseID)","status":"completed","status_details":null,"output":[{"id":"F_\#(callID)","type":"function_call","status":"completed","name":"\#(name)","call_id":"\#(callID)","arguments":\#(quoted(arguments))}],"usage":\#(usage)}}"#
        ]
    }

    static let usage =
        #"{"total_tokens":253,"input_tokens":180,"output_tokens":73,"input_token_details":{"text_tokens":120,"audio_tokens":60,"image_tokens":0,"cached_tokens":64,"cached_tokens_details":{"text_tokens":64,"audio_tokens":0,"image_tokens":0}},"output_token_details":{"text_tokens":20,"audio_tokens":53}}"#

    static func responseDone(_ id: String, status: String = "completed", reason: String? = nil, functionCall: (callID: String, query: String)? = nil)
        -> String
    {
        var output: [String] = []
        if let call = functionCall {
            let arguments = JSONValue.object(["query": .string(call.query)]).jsonText
            output.append(
                #"{"id":"F_\#(call.callID)","type":"function_call","status":"completed","name":"ask_jarvis","call_id":"\#(call.callID)","arguments":\#(quoted(arguments))}"#
            )
        }
        let details = reason.map { #"{"type":"\#(status)","reason":"\#($0)"}"# } ?? "null"
        return
            #"{"type":"response.done","event_id":"e","response":{"object":"realtime.response","id":"\#(id)","status":"\#(status)","status_details":\#(details),"output":[\#(output.joined(separator: ","))],"usage":\#(usage)}}"#
    }

    static func error(code: String, message: String) -> String {
        #"{"type":"error","event_id":"e","error":{"type":"invalid_request_error","code":"\#(code)","message":\#(quoted(message)),"param":null,"event_id":null}}"#
    }
}

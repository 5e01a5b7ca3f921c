import Basics
import Media
import Realtime

/// `enqueue(url, title)`: appends to the queue (starts at once when nothing plays).
struct EnqueueTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "enqueue",
        description: "Adds a media URL to the end of the play queue (it starts at once when nothing is playing). Use exactly the URL Jarvis gave.",
        parameters: [
            .string("url", "The http(s) URL of the stream, file, playlist or podcast feed."),
            .string("title", "What it is, as it should be announced.", required: false)
        ], answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        let url = try MediaToolJSON.url(arguments, "url", tool: "enqueue")
        let length = try await player.enqueue(url: url, title: arguments.string("title"))
        return JSONValue.object([
            "queued": arguments.string("title").map(JSONValue.string) ?? .string(url), "queue_length": .number(Double(length))
        ]).jsonText
    }
}

/// `clear_queue()`.
struct ClearQueueTool: MediaTool {
    let player: any MediaControlling

    static let definition = ToolDefinition(
        name: "clear_queue", description: "Removes every item from the play queue (what is playing keeps playing).", parameters: [],
        answersInstantly: true)

    func answer(_ arguments: ToolArguments) async throws(MediaCommandError) -> String {
        let removed = await player.clearQueue()
        return JSONValue.object(["removed": .number(Double(removed))]).jsonText
    }
}

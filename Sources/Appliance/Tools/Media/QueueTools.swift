import Basics
import Media
import Realtime

/// `enqueue(url, title)`: appends to the queue (starts at once when nothing plays).
public struct EnqueueTool: Tool {
    public let player: any MediaControlling
    public init(player: any MediaControlling) { self.player = player }

    public static let definition = ToolDefinition(
        name: "enqueue",
        description: "Adds a media URL to the end of the play queue (it starts at once when nothing is playing). Use exactly the URL Jarvis gave.",
        parameters: [
            .string("url", "The http(s) URL of the stream, file, playlist or podcast feed."),
            .string("title", "What it is, as it should be announced.", required: false),
        ], answersInstantly: true)
    public var definition: ToolDefinition { Self.definition }

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        guard let url = arguments.string("url")?.trimmingWhitespace() else { return .failure("enqueue needs a url") }
        if let refused = MediaToolJSON.checkURL(url, tool: "enqueue") { return refused }
        do throws(MediaCommandError) {
            let length = try await player.enqueue(url: url, title: arguments.string("title"))
            return .success(JSONValue.object([
                "queued": arguments.string("title").map(JSONValue.string) ?? .string(url), "queue_length": .number(Double(length)),
            ]).jsonText)
        } catch {
            return .failure(error.message)
        }
    }
}

/// `clear_queue()`.
public struct ClearQueueTool: Tool {
    public let player: any MediaControlling
    public init(player: any MediaControlling) { self.player = player }

    public static let definition = ToolDefinition(
        name: "clear_queue", description: "Removes every item from the play queue (what is playing keeps playing).", parameters: [], answersInstantly: true)
    public var definition: ToolDefinition { Self.definition }

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        let removed = await player.clearQueue()
        return .success(JSONValue.object(["removed": .number(Double(removed))]).jsonText)
    }
}

import Media
import Realtime

/// `pause_playback()`.
public struct PausePlaybackTool: Tool {
    public let player: any MediaControlling
    public init(player: any MediaControlling) { self.player = player }

    public static let definition = ToolDefinition(name: "pause_playback", description: "Pauses the media playing on this speaker.", parameters: [], answersInstantly: true)
    public var definition: ToolDefinition { Self.definition }

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        do throws(MediaCommandError) {
            try await player.pause()
            return .success(MediaToolJSON.status("paused", item: nil))
        } catch {
            return .failure(error.message)
        }
    }
}

/// `resume_playback()`.
public struct ResumePlaybackTool: Tool {
    public let player: any MediaControlling
    public init(player: any MediaControlling) { self.player = player }

    public static let definition = ToolDefinition(name: "resume_playback", description: "Resumes paused media.", parameters: [], answersInstantly: true)
    public var definition: ToolDefinition { Self.definition }

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        do throws(MediaCommandError) {
            let item = try await player.resume()
            return .success(MediaToolJSON.status("playing", item: item))
        } catch {
            return .failure(error.message)
        }
    }
}

/// `stop_playback()`: stops and clears what is playing (the queue is kept).
public struct StopPlaybackTool: Tool {
    public let player: any MediaControlling
    public init(player: any MediaControlling) { self.player = player }

    public static let definition = ToolDefinition(
        name: "stop_playback", description: "Stops the media playing on this speaker and clears what is playing.", parameters: [], answersInstantly: true)
    public var definition: ToolDefinition { Self.definition }

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        let stopped = await player.stop()
        return .success(MediaToolJSON.status("stopped", item: nil, extra: ["stopped": stopped.map(MediaToolJSON.item) ?? .null]))
    }
}

/// `skip_track()`: ends the current item and starts the next queued one.
public struct SkipTrackTool: Tool {
    public let player: any MediaControlling
    public init(player: any MediaControlling) { self.player = player }

    public static let definition = ToolDefinition(
        name: "skip_track", description: "Skips to the next item in the queue (stops when the queue is empty).", parameters: [], answersInstantly: true)
    public var definition: ToolDefinition { Self.definition }

    public func run(_ arguments: ToolArguments) async -> ToolOutput {
        guard let next = await player.skip() else {
            return .success(MediaToolJSON.status("stopped", item: nil, extra: ["queue": "empty"]))
        }
        return .success(MediaToolJSON.status("playing", item: next))
    }
}

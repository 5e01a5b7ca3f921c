import Basics
import Media
import Realtime
import Testing

@testable import Conversation

@Suite struct MediaToolsTests {
    let player = FakeMediaPlayer()
    let ducking = MediaDuckingControl()
    var registry: ToolRegistry { ToolRegistry(MediaTools.make(player: player, ducking: ducking)) }

    func run(_ name: String, _ arguments: String = "{}") async -> (ToolOutput, JSONValue?) {
        let output = await registry.dispatch(name: name, arguments: arguments)
        return (output, JSONValue.parse(output.text))
    }

    @Test func registersTheSeedsToolsInOrderWithTypedSchemas() throws {
        #expect(
            registry.order == [
                "play_audio", "pause_playback", "resume_playback", "stop_playback", "skip_track", "get_now_playing",
                "set_volume", "duck_audio", "enqueue", "clear_queue", "play_station", "play_podcast"
            ])
        #expect(registry.quietToolNames == Set(registry.order), "every media tool answers at once")
        let play = try #require(registry.tools["play_audio"]?.definition.schema)
        #expect(play["required"] == ["title", "url"] || play["required"] == ["url", "title"])
        #expect(play["properties"]?["type"]?["enum"] == ["music", "podcast", "radio", "ambient"])
        let volume = try #require(registry.tools["set_volume"]?.definition.schema)
        #expect(volume["properties"]?["level"]?["minimum"] == 0 && volume["properties"]?["level"]?["maximum"] == 1)
        let duck = try #require(registry.tools["duck_audio"]?.definition.schema)
        #expect(duck["required"] == ["level"])
        #expect(registry.tools["play_podcast"]?.definition.schema["required"] == ["feed_url"])
    }

    @Test func playAudioPlaysWhatJarvisPicked() async {
        let (output, json) = await run(
            "play_audio",
            #"{"url":"https://example.org/ep147.mp3","title":"Darknet Diaries ep 147","type":"podcast","reason":"extra keys are ignored"}"#)
        #expect(output.succeeded)
        #expect(await player.calls == ["play https://example.org/ep147.mp3 Darknet Diaries ep 147 podcast"])
        #expect(json?["status"] == "playing" && json?["title"] == "Darknet Diaries ep 147" && json?["type"] == "podcast")
        #expect(json?["url"] == "https://example.org/ep147.mp3")
    }

    @Test func playAudioValidatesItsArguments() async {
        let (wrongType, _) = await run("play_audio", #"{"url":"https://x.org/a.mp3","title":"A","type":"jazz"}"#)
        #expect(!wrongType.succeeded && wrongType.text.contains("must be one of music, podcast, radio, ambient"))
        let (noURL, _) = await run("play_audio", #"{"title":"A"}"#)
        #expect(!noURL.succeeded && noURL.text.contains("url") && noURL.text.contains("is missing"))
        let (file, json) = await run("play_audio", #"{"url":"file:///etc/passwd","title":"A"}"#)
        #expect(!file.succeeded && json?["error"]?.stringValue?.contains("only http and https") == true)
        let (notJSON, _) = await run("play_audio", "{url:")
        #expect(!notJSON.succeeded)
        #expect(await player.calls.isEmpty, "nothing invalid reaches the player")
    }

    @Test func playerErrorsBecomeSpokenFailures() async {
        await player.fail(with: "The stream could not be reached (HTTP 404).")
        let (output, json) = await run("play_audio", #"{"url":"https://x.org/gone.mp3","title":"Gone"}"#)
        #expect(!output.succeeded)
        #expect(json == ["error": "The stream could not be reached (HTTP 404)."])
        let (pause, pauseJSON) = await run("pause_playback")
        #expect(!pause.succeeded && pauseJSON == ["error": "Nothing is playing."])
        let (resume, resumeJSON) = await run("resume_playback")
        #expect(!resume.succeeded && resumeJSON == ["error": "Nothing is paused."])
        await player.fail(with: "That feed is not a podcast.")
        let (podcast, _) = await run("play_podcast", #"{"feed_url":"https://x.org/feed.xml"}"#)
        #expect(!podcast.succeeded && podcast.text.contains("not a podcast"))
        await player.fail(with: "The queue is full.")
        let (enqueue, _) = await run("enqueue", #"{"url":"https://x.org/b.mp3"}"#)
        #expect(!enqueue.succeeded && enqueue.text.contains("queue is full"))
    }

    @Test func transportControls() async {
        _ = await run("play_station", #"{"name":"Groove Salad"}"#)
        let (pause, pauseJSON) = await run("pause_playback")
        #expect(pause.succeeded && pauseJSON == ["status": "paused"])
        let (resume, resumeJSON) = await run("resume_playback")
        #expect(resume.succeeded && resumeJSON?["status"] == "playing" && resumeJSON?["show"] == "SomaFM")
        let (stop, stopJSON) = await run("stop_playback")
        #expect(stop.succeeded && stopJSON?["status"] == "stopped" && stopJSON?["stopped"]?["title"] == "Groove Salad")
        let (again, againJSON) = await run("stop_playback")
        #expect(again.succeeded && againJSON?["stopped"] == .null)
        #expect(await player.calls == ["station Groove Salad", "pause", "resume", "stop", "stop"])
    }

    @Test func queueAndSkip() async {
        let (first, firstJSON) = await run("enqueue", #"{"url":"https://x.org/1.mp3","title":"One"}"#)
        #expect(first.succeeded && firstJSON == ["queued": "One", "queue_length": 1])
        let (_, secondJSON) = await run("enqueue", #"{"url":"https://x.org/2.mp3"}"#)
        #expect(secondJSON == ["queued": "https://x.org/2.mp3", "queue_length": 2])
        let (skip, skipJSON) = await run("skip_track")
        #expect(skip.succeeded && skipJSON?["status"] == "playing" && skipJSON?["title"] == "One")
        let (clear, clearJSON) = await run("clear_queue")
        #expect(clear.succeeded && clearJSON == ["removed": 1])
        let (_, emptyJSON) = await run("skip_track")
        #expect(emptyJSON == ["status": "stopped", "queue": "empty"])
    }

    @Test func nowPlayingTellsStateTitlesQueueAndRecentHistory() async {
        _ = await run("play_audio", #"{"url":"https://ice.somafm.com/groovesalad-128-mp3","title":"Groove Salad","type":"radio"}"#)
        _ = await run("enqueue", #"{"url":"https://x.org/next.mp3","title":"Next"}"#)
        await player.set(streamTitle: "Boards of Canada - Dayvan Cowboy", position: 125.4, duration: nil)
        await player.set(
            history: (1...8).map {
                MediaHistoryEntry(
                    item: MediaItem(url: "https://x.org/\($0).mp3", title: "Old \($0)", kind: .music),
                    startedAt: 1_763_700_000 + Int64($0), playedSeconds: 61.6, streamTitles: ["a", "b", "c", "d"])
            })
        let (output, json) = await run("get_now_playing")
        #expect(output.succeeded)
        #expect(json?["state"] == "playing" && json?["title"] == "Groove Salad" && json?["type"] == "radio")
        #expect(json?["stream_title"] == "Boards of Canada - Dayvan Cowboy")
        #expect(json?["url"] == "https://ice.somafm.com/groovesalad-128-mp3")
        #expect(json?["position_seconds"] == 125 && json?["duration_seconds"] == .null)
        #expect(json?["volume"] == 0.8)
        #expect(json?["queue"] == [["url": "https://x.org/next.mp3", "title": "Next", "type": "music"]])
        guard case .array(let recent)? = json?["recent"] else {
            Issue.record("no recent list: \(output.text)")
            return
        }
        #expect(recent.count == 5)
        #expect(recent.first?["title"] == "Old 1" && recent.first?["played_seconds"] == 62)
        #expect(recent.first?["stream_titles"] == ["b", "c", "d"])
        #expect(output.text.count < 1_500, "short enough to speak from: \(output.text.count) characters")
        #expect(await player.calls.suffix(2) == ["now", "history 5"])
    }

    @Test func nowPlayingWhenStopped() async {
        let (_, json) = await run("get_now_playing")
        #expect(json?["state"] == "stopped" && json?["title"] == .null && json?["position_seconds"] == nil)
        #expect(json?["queue"] == [] && json?["recent"] == [])
    }

    @Test func volumeIsValidatedAndReportsTheAppliedLevel() async {
        let (output, json) = await run("set_volume", #"{"level":0.33}"#)
        #expect(output.succeeded && json == ["volume": 0.35])
        let (loud, _) = await run("set_volume", #"{"level":1.5}"#)
        #expect(!loud.succeeded && loud.text.contains("out of range"))
        let (text, _) = await run("set_volume", #"{"level":"loud"}"#)
        #expect(!text.succeeded && text.text.contains("must be a number"))
        #expect(await player.calls == ["volume 0.33"])
    }

    @Test func duckAudioHandsTheLevelToTheRunner() async {
        let (output, json) = await run("duck_audio", #"{"level":0.6}"#)
        #expect(output.succeeded && json == ["duck_level": 0.6])
        #expect(ducking.take() == 0.6)
        #expect(ducking.take() == nil, "taken once")
        let (bad, _) = await run("duck_audio", #"{"level":-0.1}"#)
        #expect(!bad.succeeded)
        #expect(ducking.take() == nil)
        #expect(await player.calls.isEmpty, "duck_audio never touches the player")
    }

    @Test func playPodcastAndStation() async {
        let (podcast, json) = await run("play_podcast", #"{"feed_url":"https://x.org/feed.xml","episode":2}"#)
        #expect(podcast.succeeded && json?["title"] == "Episode 2" && json?["show"] == "The Show" && json?["type"] == "podcast")
        let (fraction, _) = await run("play_podcast", #"{"feed_url":"https://x.org/feed.xml","episode":1.5}"#)
        #expect(!fraction.succeeded)
        let (latest, _) = await run("play_podcast", #"{"feed_url":"https://x.org/feed.xml"}"#)
        #expect(latest.succeeded)
        let (station, _) = await run("play_station", #"{"name":"  "}"#)
        #expect(!station.succeeded, "an empty name is refused")
        #expect(await player.calls == ["podcast https://x.org/feed.xml 2", "podcast https://x.org/feed.xml latest"])
    }
}

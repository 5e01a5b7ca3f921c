import AudioEngine
import Basics
import Control
import Conversation
import Logging
import Media
import Rooms

/// Maps control-socket verbs onto the conversation runner and the media player.
struct ApplianceControlHandler: ControlHandler {
    let runner: ConversationRunner
    let media: any MediaControlling
    let voiceVolume: VoiceVolumeStore
    let pipeline: AudioPipeline
    let timers: KitchenTimers
    /// nil when `[snapcast]` is off.
    let snapcast: SnapcastPlayer?
    /// nil when `[snapcast]` is off or has no announcement stream.
    let announcer: RoomAnnouncer?
    var logger = Logger(label: "control")

    func handle(_ command: ControlCommand) async -> ControlResponse {
        switch command {
        case .tap:
            runner.tap()
            return .done("tap")
        case .press:
            runner.press()
            return .done("pressed")
        case .release:
            runner.release()
            return .done("released")
        case .reset:
            runner.reset()
            return .done("Jarvis session reset")
        case .ask(let text):
            runner.ask(text)
            return .done("asking")
        case .status:
            return .status(await status())
        case .play(let url):
            return await playing { () async throws(MediaCommandError) in try await media.play(url: url, title: nil, kind: nil) }
        case .station(let name):
            return await playing { () async throws(MediaCommandError) in try await media.playStation(named: name) }
        case .podcast(let feedURL):
            return await playing { () async throws(MediaCommandError) in
                try await media.playPodcast(feedURL: feedURL, episode: nil)
            }
        case .pause:
            do throws(MediaCommandError) {
                try await media.pause()
                return .done("paused")
            } catch {
                return .failed(error.message)
            }
        case .resume:
            return await playing { () async throws(MediaCommandError) in try await media.resume() }
        case .stop:
            let stopped = await media.stop()
            return .done(stopped.map { "stopped \(Self.name(of: $0))" } ?? "nothing was playing")
        case .skip:
            let next = await media.skip()
            return .done(next.map { "playing \(Self.name(of: $0))" } ?? "the queue is empty; stopped")
        case .volume(let level):
            let applied = await media.setVolume(level)
            return .done("volume \(applied)")
        case .voiceVolume(let level):
            runner.setVoiceVolume(Float(level))
            do throws(MediaStateFiles.Failure) {
                try voiceVolume.set(level)
            } catch {
                logger.warning("voice volume \(level) applied but not saved: \(error)")
            }
            return .done("voice volume \(level)")
        case .timer(let request):
            return await timer(request)
        case .mute(let muted):
            runner.muteMicrophone(muted)
            return .done(muted ? "microphone off" : "microphone on")
        case .say(let text):
            switch await runner.say(text) {
            case .spoken: return .done("spoken")
            case .failed(let reason): return .failed(reason)
            }
        case .sayInEveryRoom(let text):
            guard let announcer else {
                return .failed(
                    "say --rooms needs [snapcast] enabled = true with an announce_stream (see the configuration's [snapcast] section)")
            }
            return await announcer.say(text)
        case .roomStream(let name):
            guard let snapcast else { return .failed("[snapcast] is off on this box; there is no group to switch") }
            do throws(SnapcastRoomError) {
                try await snapcast.switchStream(to: name)
                return .done("the group plays \(name)")
            } catch {
                return .failed("\(error)")
            }
        }
    }

    /// `ctl timer …`: one line per timer for `list`, one sentence otherwise.
    private func timer(_ request: TimerRequest) async -> ControlResponse {
        func describe(_ timer: KitchenTimer) -> String {
            "\(timer.kind == .alarm ? "alarm" : "timer") \(timer.id)" + (timer.label.map { " (\($0))" } ?? "")
        }
        do throws(KitchenTimers.Failure) {
            switch request {
            case .list:
                let ringing = await runner.status().ringing.map { "\(describe($0)): ringing" }
                let running = timers.list().map { "\(describe($0.timer)): \(TimerDuration.clock($0.secondsLeft)) left" }
                let lines = ringing + running
                return .done(lines.isEmpty ? "no timers" : lines.joined(separator: "\n"))
            case .add(let seconds, let label):
                return .done("\(describe(try timers.add(seconds: seconds, label: label))) set for \(TimerDuration.clock(seconds))")
            case .alarm(let time, let label):
                let alarm = try timers.addAlarm(at: time, label: label)
                let left = timers.list().first { $0.timer.id == alarm.id }?.secondsLeft ?? 0
                return .done("\(describe(alarm)) set for \(time), in \(TimerDuration.clock(left))")
            case .cancel(let key):
                return .done("cancelled " + (try timers.cancel(key)).map(describe).joined(separator: ", "))
            case .stop:
                let ringing = await runner.status().ringing
                runner.stopRinging()
                return .done(ringing.isEmpty ? "nothing is ringing" : "stopped \(ringing.map(describe).joined(separator: ", "))")
            }
        } catch {
            return .failed(error.description)
        }
    }

    private func playing(_ start: () async throws(MediaCommandError) -> MediaItem) async -> ControlResponse {
        do throws(MediaCommandError) {
            return .done("playing \(Self.name(of: try await start()))")
        } catch {
            return .failed(error.message)
        }
    }

    static func name(of item: MediaItem) -> String {
        item.title ?? item.show ?? item.url
    }

    func status() async -> ServiceStatus {
        let conversation = await runner.status()
        let now = await media.nowPlaying()
        return ServiceStatus(
            state: conversation.state.rawValue, realtimeConnected: conversation.realtimeConnected,
            jarvisSessionID: conversation.jarvisSessionID, voiceVolume: voiceVolume.current, muted: conversation.microphoneMuted,
            timers: conversation.ringing.map { TimerStatus(id: $0.id, label: $0.label, state: .ringing, dueInSeconds: 0) }
                + timers.list().map { TimerStatus(id: $0.timer.id, label: $0.timer.label, state: .running, dueInSeconds: $0.secondsLeft) },
            media: MediaStatus(
                state: MediaStatus.State(rawValue: now.state.rawValue) ?? .stopped, title: now.displayTitle,
                url: now.item?.url, volume: now.volume, ducked: conversation.media.ducked),
            cost: CostStatus(
                sinceStart: conversation.spending.sinceStart,
                today: conversation.spending.spent(on: LocalTime.systemNow().calendarDay)),
            bargeIns: conversation.bargeIns, echoTurnsIgnored: conversation.echoTurnsIgnored,
            voicePausesResumed: conversation.pausesResumed,
            malformedEvents: conversation.malformedEvents, unknownEvents: conversation.unknownEvents, audio: audioStatus(),
            snapcast: snapcast.map(Self.status))
    }

    static func status(of player: SnapcastPlayer) -> SnapcastStatus {
        let now = player.status
        return SnapcastStatus(
            server: player.settings.server, name: player.settings.hello.hostName, id: player.settings.hello.id,
            connected: now.connected, synced: now.synced, codec: now.codec, playing: now.playing,
            volume: Double(now.volume) / 100, serverMuted: now.serverMuted,
            syncErrorMilliseconds: Double(now.syncErrorNanoseconds / 1_000) / 1_000,
            clockSpreadMilliseconds: Double(now.clockSpreadMicroseconds) / 1_000, group: now.group, stream: now.stream,
            streams: now.streams)
    }

    private func audioStatus() -> AudioStatus {
        let capture = pipeline.captureLoop.status, playback = pipeline.playbackLoop.status
        let chain = pipeline.captureStatistics
        return AudioStatus(
            captureRunning: capture.isRunning, playbackRunning: playback.isRunning, captureXruns: capture.xruns,
            playbackXruns: playback.xruns, echoReductionDB: chain.echoReductionDB, referenceLagMilliseconds: chain.lagMilliseconds,
            nearEndSpeech: chain.nearEndSpeech, playbackTakeBacks: playback.takeBacks,
            playbackTakeBackUnderruns: playback.takeBackUnderruns)
    }
}

import AudioCore
import AudioEngine
import Logging
import ServiceLifecycle
import Snapcast
import Synchronization

/// The box as a player of a Snapcast group: keeps a connection to the snapserver's stream port
/// (`SnapcastSession` decides what to send and when to reconnect), decodes the group's stream and plays
/// it on the mixer's `rooms` input at the group's time (`SynchronizedChannelWriter`), so volume,
/// ducking, leveling and the echo reference treat it as they treat radio. Local media comes first:
/// while it plays, the group's audio is received and dropped.
///
/// The server's volume for this box is the media volume (`serverVolume`); a local volume change goes
/// back to the server (`localVolumeChanged`) so its apps follow.
public final class SnapcastPlayer: Service, Sendable {
    enum Event: Sendable {
        case connected(generation: Int)
        case ended(generation: Int, failure: String?)
        case bytes(generation: Int, [UInt8], at: Int64)
        case tick
        case localMedia(playing: Bool)
        case localVolume(Int)
    }

    public let settings: SnapcastPlayerSettings
    private let writer: SynchronizedChannelWriter
    private let serverVolume: @Sendable (Int) async -> Void
    private let announcementPlaying: @Sendable (Bool) -> Void
    private let initialVolume: Int
    private let logger: Logger
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    private let published = Mutex(SnapcastPlayerStatus())
    /// The group, its stream and the server's streams, from the control port (polled while connected).
    private let room = Mutex<SnapcastServerStatus?>(nil)
    public let control: SnapcastControlClient

    /// - Parameters:
    ///   - mediaVolume: the box's media volume now, 0.0...1.0.
    ///   - serverVolume: the server set this box's volume (0...100): apply it as the media volume.
    ///   - announcementPlaying: (announcements) one started or ended: duck media under it.
    public init(
        settings: SnapcastPlayerSettings, writer: SynchronizedChannelWriter, mediaVolume: Double, logger: Logger,
        serverVolume: @escaping @Sendable (Int) async -> Void = { _ in },
        announcementPlaying: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.announcementPlaying = announcementPlaying
        initialVolume = Self.percent(mediaVolume)
        self.settings = settings
        self.writer = writer
        self.serverVolume = serverVolume
        self.logger = logger
        control = SnapcastControlClient(host: settings.host, port: settings.controlPort, timeout: settings.controlTimeout)
        (events, eventSink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    public var status: SnapcastPlayerStatus {
        var status = published.withLock { $0 }
        guard let server = room.withLock({ $0 }) else { return status }
        let group = server.group(containing: settings.hello.clientID)
        status.group = group.map { $0.name.isEmpty ? $0.id : $0.name }
        status.stream = group?.streamID
        status.streams = server.streams.map(\.id)
        return status
    }

    /// Makes this box's group play the server's stream `streamID` (all boxes in the group follow).
    public func switchStream(to streamID: String) async throws(SnapcastRoomError) {
        let server = try await refreshRoom()
        guard let group = server.group(containing: settings.hello.clientID) else {
            throw .notInGroup(clientID: settings.hello.clientID)
        }
        guard server.stream(id: streamID) != nil else {
            throw .unknownStream(streamID, available: server.streams.map(\.id))
        }
        do throws(SnapcastControlClientError) {
            try await control.setGroupStream(groupID: group.id, streamID: streamID)
        } catch {
            throw .control(error)
        }
        _ = try? await refreshRoom()
    }

    @discardableResult
    private func refreshRoom() async throws(SnapcastRoomError) -> SnapcastServerStatus {
        do throws(SnapcastControlClientError) {
            let server = try await control.status()
            room.withLock { $0 = server }
            return server
        } catch {
            room.withLock { $0 = nil }
            throw .control(error)
        }
    }

    /// Asks the control port for the group while the stream port is connected, so `status` answers at
    /// once from memory and a slow or absent control port never holds it up.
    private func pollRoom() async {
        var failureLogged = false
        while !Task.isCancelled {
            if published.withLock({ $0.connected }) {
                do throws(SnapcastRoomError) {
                    try await refreshRoom()
                    failureLogged = false
                } catch {
                    if !failureLogged { logger.warning("\(settings.logPrefix)\(error)") }
                    failureLogged = true
                }
            } else {
                room.withLock { $0 = nil }
            }
            // Until the group is known, ask sooner: `status` should show it soon after connecting.
            let known = room.withLock { $0 != nil }
            try? await Task.sleep(for: known ? settings.controlPollInterval : min(settings.controlPollInterval, .seconds(1)))
        }
    }

    /// Local media started or stopped playing (it takes the speaker from the group while it plays).
    public func localMediaChanged(playing: Bool) { eventSink.yield(.localMedia(playing: playing)) }

    /// The media volume changed on the box (0.0...1.0).
    public func localVolumeChanged(_ level: Double) {
        eventSink.yield(.localVolume(Self.percent(level)))
    }

    static func percent(_ level: Double) -> Int { Int((min(max(level, 0), 1) * 100).rounded()) }

    public func run() async {
        var loop = SnapcastPlayerLoop(
            settings: settings, writer: writer, logger: logger, localVolume: initialVolume, serverVolume: serverVolume,
            announcementPlaying: announcementPlaying,
            joinStream: { stream in
                do throws(SnapcastRoomError) {
                    try await self.switchStream(to: stream)
                    return nil
                } catch {
                    return "\(error)"
                }
            }, sink: eventSink)
        await withTaskGroup(of: Void.self) { group in
            let tick = settings.tick
            let sink = eventSink
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    sink.yield(.tick)
                }
            }
            group.addTask { await self.pollRoom() }
            loop.connect(now: monotonicNanoseconds())
            for await event in events.cancelOnGracefulShutdown() {
                await loop.handle(event, now: monotonicNanoseconds())
                let status = loop.status
                published.withLock { $0 = status }
            }
            loop.close()
            group.cancelAll()
        }
    }
}

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
    private let joinStream: @Sendable (String) async -> Bool
    private let initialVolume: Int
    private let logger: Logger
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    private let published = Mutex(SnapcastPlayerStatus())

    /// - Parameters:
    ///   - mediaVolume: the box's media volume now, 0.0...1.0.
    ///   - serverVolume: the server set this box's volume (0...100): apply it as the media volume.
    ///   - announcementPlaying: (announcements) one started or ended: duck media under it.
    ///   - joinStream: (announcements) put this client's group on the named stream; false when it could not.
    public init(
        settings: SnapcastPlayerSettings, writer: SynchronizedChannelWriter, mediaVolume: Double, logger: Logger,
        serverVolume: @escaping @Sendable (Int) async -> Void = { _ in },
        announcementPlaying: @escaping @Sendable (Bool) -> Void = { _ in },
        joinStream: @escaping @Sendable (String) async -> Bool = { _ in false }
    ) {
        self.announcementPlaying = announcementPlaying
        self.joinStream = joinStream
        initialVolume = Self.percent(mediaVolume)
        self.settings = settings
        self.writer = writer
        self.serverVolume = serverVolume
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    public var status: SnapcastPlayerStatus { published.withLock { $0 } }

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
            announcementPlaying: announcementPlaying, joinStream: joinStream, sink: eventSink)
        await withTaskGroup(of: Void.self) { group in
            let tick = settings.tick
            let sink = eventSink
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    sink.yield(.tick)
                }
            }
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

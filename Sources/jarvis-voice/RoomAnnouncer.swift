import Control
import Logging
import Rooms

/// `ctl say --rooms all TEXT`: the assistant's voice speaks the text into a buffer (not on this box's
/// speaker), which goes to the snapserver's announcement stream; every box of the group, this one too,
/// plays it at the same moment through its announcement player, media ducked under it.
struct RoomAnnouncer: Sendable {
    let host: String
    let port: Int
    let stream: String
    /// The text in the assistant's voice: mono samples and their rate.
    let speak: @Sendable (String) async throws -> (samples: [Int16], rate: Int)
    /// The server's buffer: what is sent now is heard this much later (ms).
    let bufferMilliseconds: @Sendable () -> Int
    var logger = Logger(label: "snapcast")

    func say(_ text: String) async -> ControlResponse {
        let voice: (samples: [Int16], rate: Int)
        do {
            voice = try await speak(text)
        } catch {
            logger.error("announcement to every room: the assistant's voice could not speak it: \(error)")
            return .failed("the assistant's voice could not speak it: \(error)")
        }
        do throws(SnapcastAnnouncementFeeder.Failure) {
            try await SnapcastAnnouncementFeeder.send(voice.samples, rate: voice.rate, host: host, port: port)
        } catch {
            logger.error("announcement to every room: \(error)")
            return .failed("\(error)")
        }
        // What was sent last is heard a server buffer later (plus what the feeder ran ahead).
        try? await Task.sleep(for: .milliseconds(bufferMilliseconds() + 200))
        let seconds = Double(voice.samples.count * 10 / max(1, voice.rate)) / 10
        logger.info("announcement to every room: \(seconds) s through stream \"\(stream)\"")
        return .done("said in every room")
    }
}

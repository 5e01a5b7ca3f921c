import Testing

@testable import Codecs

/// ReplayGain and R128 track gains as the loudness a leveler starts from.
struct VorbisCommentsLoudnessTests {
    static func comments(_ entries: [String]) throws -> VorbisComments {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var packet = VorbisComments.opusMagic + le32(6) + Array("vendor".utf8) + le32(entries.count)
        for entry in entries { packet += le32(entry.utf8.count) + Array(entry.utf8) }
        return try VorbisComments(parsing: packet, after: VorbisComments.opusMagic)
    }

    @Test func aReplayGainTrackGainIsRelativeToMinus18LUFS() throws {
        #expect(try Self.comments(["REPLAYGAIN_TRACK_GAIN=-6.48 dB"]).trackLoudness == -18 + 6.48)
        #expect(try Self.comments(["replaygain_track_gain=+2.5 dB"]).trackLoudness == -20.5)
        #expect(try Self.comments(["REPLAYGAIN_TRACK_GAIN=1.0"]).trackLoudness == -19)
    }

    @Test func anR128TrackGainIsQ7Point8RelativeToMinus23LUFSAndWins() throws {
        // -1280 / 256 = -5 dB: the track is at -18 LUFS.
        #expect(try Self.comments(["R128_TRACK_GAIN=-1280", "REPLAYGAIN_TRACK_GAIN=-9 dB"]).trackLoudness == -18)
    }

    @Test func absentOrUnreadableOrAbsurdGainsAreNoTag() throws {
        #expect(try Self.comments(["TITLE=x"]).trackLoudness == nil)
        #expect(try Self.comments(["REPLAYGAIN_TRACK_GAIN=loud"]).trackLoudness == nil)
        #expect(try Self.comments(["REPLAYGAIN_TRACK_GAIN=nan dB"]).trackLoudness == nil)
        #expect(try Self.comments(["REPLAYGAIN_TRACK_GAIN=-90 dB"]).trackLoudness == nil)
        #expect(try Self.comments(["R128_TRACK_GAIN=99999"]).trackLoudness == nil)
    }
}

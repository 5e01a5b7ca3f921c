import AudioCore
import Codecs

/// Bytes of a radio stream or a file on disk: Ogg pages and the Opus headers in them, WAV files.
enum CodecFuzzing {
    static func ogg(_ bytes: [UInt8]) {
        var demuxer = OggDemuxer(maxPacketBytes: 1 << 16)
        for chunk in chunks(bytes) {
            demuxer.push(Array(chunk))
            while let packet = demuxer.nextPacket() {
                keep(try? OpusHead(parsing: packet.data))
                keep(try? OpusTags(parsing: packet.data))
            }
        }
        // The raw input as a header packet too, so header fields get fuzzed without page framing.
        keep(try? OpusHead(parsing: bytes))
        keep(try? OpusTags(parsing: bytes))
    }

    static func wav(_ bytes: [UInt8]) {
        keep(try? WAVFile(bytes: bytes))
    }
}

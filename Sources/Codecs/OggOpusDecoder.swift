import AudioCore

/// Ogg Opus (RFC 7845) over our `OggDemuxer` and libopus: 48 kHz interleaved Int16 out with the
/// stream's channel count. Honours pre-skip, output gain and end trimming by granule position.
/// Chained streams (Icecast sends a new logical stream per track) start a fresh decoder; their
/// OpusTags update `tags`. Logical streams that are not Opus (multiplexed video, ...) are ignored; an Ogg
/// stream whose audio is another codec (Vorbis, FLAC, Speex) and has no Opus is refused once its headers
/// are over, so it never plays as silence.
public final class OggOpusDecoder: StreamDecoder {
    public static let maxFramesPerPacket = 5_760  // 120 ms at 48 kHz

    private var demuxer = OggDemuxer()
    private var decoder: OpusMultistreamDecoderHandle?
    private var output: UnsafeMutableBufferPointer<Int16> = .init(start: nil, count: 0)
    private var serial: UInt32?
    private var expectingTags = false
    private var preSkipRemaining = 0
    private var decodedInStream: Int64 = 0
    public private(set) var format: AudioFormat?
    public private(set) var head: OpusHead?
    /// The latest OpusTags (changes with each chained stream).
    public private(set) var tags: VorbisComments?
    public var streamTitle: String? { tags?.streamTitle }
    public var taggedLoudness: Double? { tags?.trackLoudness }
    /// Logical streams started (1 for a plain file; more for a chained radio stream).
    public private(set) var streamsStarted = 0
    /// Packets libopus rejected (counted and skipped: one bad packet must not end a stream).
    public private(set) var corruptPackets = 0
    /// The first audio codec other than Opus a beginning-of-stream packet announced.
    private var otherAudio: String?

    public init() {}

    deinit {
        output.deallocate()
    }

    public func decode(_ bytes: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) throws(CodecError) {
        demuxer.push(bytes)
        while let packet = demuxer.nextPacket() {
            try handle(packet, sink)
        }
    }

    public func reset() throws(CodecError) {
        demuxer.reset()
        decoder = nil
        serial = nil
        expectingTags = false
        format = nil
        otherAudio = nil
    }

    private func handle(_ packet: OggPacket, _ sink: (PCMBlock) -> Void) throws(CodecError) {
        if packet.isBeginning {
            if packet.data.starts(with: Array("OpusHead".utf8)) {
                try startStream(packet)
            } else if otherAudio == nil {
                otherAudio = Self.audioCodecName(identifiedBy: packet.data)
            }
            return
        }
        guard packet.serial == serial, let decoder, let format else {
            // Ogg puts every stream's first page before any data: data with no Opus stream is the end of hope.
            if decoder == nil, let otherAudio {
                throw CodecError(
                    kind: .unsupported, codec: "ogg", function: "stream headers",
                    message: "the stream is Ogg \(otherAudio), which this release does not play (it plays \(AudioCodec.playableNames))")
            }
            return
        }
        if expectingTags {
            expectingTags = false
            if packet.data.starts(with: Array("OpusTags".utf8)) {
                tags = try? VorbisComments(parsing: packet.data, after: VorbisComments.opusMagic)
                return
            }
        }
        guard !packet.data.isEmpty else { return }
        var frames: Int
        do {
            frames = try packet.data.withUnsafeBytes { raw in try decoder.decode(raw, into: output) }
        } catch {
            corruptPackets += 1
            return
        }
        let decodedBefore = decodedInStream
        decodedInStream += Int64(frames)
        if packet.isEnd, packet.granule >= 0 {
            frames = Int(max(0, min(Int64(frames), packet.granule - decodedBefore)))
        }
        var first = 0
        if preSkipRemaining > 0 {
            first = min(preSkipRemaining, frames)
            preSkipRemaining -= first
        }
        guard frames > first else { return }
        let channels = format.channels
        let samples = UnsafeBufferPointer(rebasing: output[(first * channels)..<(frames * channels)])
        sink(PCMBlock(format: format, samples: samples))
    }

    /// The audio codec a logical stream's first packet names (its identification header), or nil.
    public static func audioCodecName(identifiedBy packet: [UInt8]) -> String? {
        if packet.starts(with: [0x01] + Array("vorbis".utf8)) { return "Vorbis" }
        if packet.starts(with: [0x7F] + Array("FLAC".utf8)) { return "FLAC" }
        if packet.starts(with: Array("Speex   ".utf8)) { return "Speex" }
        return nil
    }

    private func startStream(_ packet: OggPacket) throws(CodecError) {
        let head = try OpusHead(parsing: packet.data)
        decoder = try OpusMultistreamDecoderHandle(
            channels: head.channels, streams: head.streamCount,
            coupledStreams: head.coupledCount, mapping: head.mapping)
        if head.outputGain != 0 { try decoder?.setGain(q8: head.outputGain) }
        let needed = Self.maxFramesPerPacket * head.channels
        if output.count < needed {
            output.deallocate()
            output = .allocate(capacity: needed)
            output.initialize(repeating: 0)
        }
        self.head = head
        serial = packet.serial
        format = AudioFormat(sampleRate: 48_000, channels: head.channels)
        expectingTags = true
        preSkipRemaining = head.preSkip
        decodedInStream = 0
        streamsStarted += 1
    }
}

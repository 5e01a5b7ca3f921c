import AudioCore

/// Ogg Vorbis over our `OggDemuxer` and libvorbis: interleaved Int16 out at the stream's rate and
/// channel count. Chained streams (Icecast sends a new logical stream per track) start a fresh
/// decoder; their comment headers update `tags`. A packet libvorbis rejects is counted and skipped.
public final class OggVorbisDecoder: StreamDecoder {
    private var demuxer = OggDemuxer()
    private var synthesis: VorbisSynthesis?
    private var serial: UInt32?
    public private(set) var format: AudioFormat?
    /// The latest comment header (changes with each chained stream).
    public private(set) var tags: VorbisComments?
    public var streamTitle: String? { tags?.streamTitle }
    public var taggedLoudness: Double? { tags?.trackLoudness }
    /// Logical streams started.
    public private(set) var streamsStarted = 0
    /// Audio packets libvorbis rejected.
    public private(set) var corruptPackets = 0

    public init() {}

    public func decode(_ bytes: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) throws(CodecError) {
        demuxer.push(bytes)
        while let packet = demuxer.nextPacket() {
            try handle(packet, sink)
        }
    }

    public func reset() throws(CodecError) {
        demuxer.reset()
        synthesis = nil
        serial = nil
        format = nil
    }

    private func handle(_ packet: OggPacket, _ sink: (PCMBlock) -> Void) throws(CodecError) {
        if packet.isBeginning, packet.data.starts(with: [0x01] + Array("vorbis".utf8)) {
            synthesis = VorbisSynthesis()
            serial = packet.serial
            streamsStarted += 1
        }
        guard packet.serial == serial, let synthesis else { return }
        if synthesis.needsHeaders {
            try synthesis.header(packet.data)
            if packet.data.starts(with: VorbisComments.vorbisMagic) {
                tags = try? VorbisComments(parsing: packet.data, after: VorbisComments.vorbisMagic)
            }
            format = synthesis.format ?? format
            return
        }
        guard let format = synthesis.format else { return }
        let accepted = synthesis.decode(packet.data) { samples in sink(PCMBlock(format: format, samples: samples)) }
        if !accepted { corruptPackets += 1 }
    }
}

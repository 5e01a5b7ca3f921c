import AudioCore

/// FLAC, native (a file or an HTTP stream) or in Ogg (an Icecast station), over libFLAC: interleaved
/// Int16 out at the stream's rate and channel count (24-bit samples keep their top 16 bits). Ogg FLAC's
/// packets are turned back into the native stream they carry (its first packet holds STREAMINFO, each
/// audio packet one frame), so both go through one decoder; a chained Ogg stream starts a fresh one.
public final class FLACDecoder: StreamDecoder {
    public enum Container: Sendable { case native, ogg }

    private let container: Container
    private let wholeFrames: Bool
    private var header = FLACStreamHeader()
    private var frames: FLACFrameDecoder?
    private var demuxer = OggDemuxer()
    private var serial: UInt32?
    private var oggComments: VorbisComments?
    public private(set) var format: AudioFormat?
    public var streamTitle: String? { (oggComments ?? header.comments)?.streamTitle }
    public var taggedLoudness: Double? { (oggComments ?? header.comments)?.trackLoudness }
    /// Logical streams started (Ogg).
    public private(set) var streamsStarted = 0

    /// `wholeFrames`: each `decode` call ends on a frame boundary (a Snapcast chunk), so a frame is decoded
    /// as soon as its bytes are in instead of once a largest frame's worth waits (a live encoder's STREAMINFO
    /// leaves that size unknown, which would hold back 64 KiB, seconds of audio). A frame that is cut
    /// short anyway still waits for the rest.
    public init(container: Container, wholeFrames: Bool = false) {
        self.container = container
        self.wholeFrames = wholeFrames
    }

    /// The metadata is over (native: its last block arrived; Ogg: the stream's first packet).
    public var headerComplete: Bool { frames != nil }

    /// Bytes fed but not yet decoded (a partial frame waiting for the rest; metadata not yet complete).
    public var pendingBytes: Int { frames?.pendingBytes ?? 0 }

    public func decode(_ bytes: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) throws(CodecError) {
        switch container {
        case .native: try decodeNative(bytes, sink)
        case .ogg: try decodeOgg(bytes, sink)
        }
    }

    public func reset() throws(CodecError) {
        header = FLACStreamHeader()
        frames = nil
        demuxer.reset()
        serial = nil
        format = nil
    }

    /// The file ended: its last frame is decoded even though fewer bytes than a largest frame are left.
    public func finish(into sink: (PCMBlock) -> Void) throws(CodecError) {
        try drain(complete: true, sink)
    }

    private func decodeNative(_ bytes: UnsafeRawBufferPointer, _ sink: (PCMBlock) -> Void) throws(CodecError) {
        var rest = bytes
        if frames == nil {
            let (used, step) = try header.take(bytes)
            rest = UnsafeRawBufferPointer(rebasing: bytes[used...])
            guard case .done(let prefix, let maxFrameBytes) = step else { return }
            let decoder = try FLACFrameDecoder()
            if wholeFrames {
                decoder.readyBytes = 1
            } else if maxFrameBytes > 0 {
                decoder.readyBytes = maxFrameBytes + 16
            }
            decoder.append(prefix)
            frames = decoder
        }
        frames!.append(rest)
        try drain(complete: false, sink)
    }

    private func decodeOgg(_ bytes: UnsafeRawBufferPointer, _ sink: (PCMBlock) -> Void) throws(CodecError) {
        demuxer.push(bytes)
        while let packet = demuxer.nextPacket() {
            if packet.isBeginning, packet.data.starts(with: [0x7F] + Array("FLAC".utf8)) {
                // 0x7F "FLAC", version (2), header count (2), then the native "fLaC" and STREAMINFO
                guard packet.data.count >= 13 + 38 else {
                    throw CodecError(kind: .invalidStream, codec: "flac", function: "Ogg FLAC header", message: "too short")
                }
                let decoder = try FLACFrameDecoder()
                decoder.append(Array(packet.data[13...]))
                frames = decoder
                serial = packet.serial
                streamsStarted += 1
                continue
            }
            guard packet.serial == serial, let frames else { continue }
            if let first = packet.data.first, first & 0x7F == 4 {  // a VORBIS_COMMENT block (frames start 0xFF)
                oggComments = (try? VorbisComments(parsing: Array(packet.data.dropFirst(4)), after: [])) ?? oggComments
            }
            frames.append(packet.data)
            try drain(complete: true, sink)
        }
    }

    private func drain(complete: Bool, _ sink: (PCMBlock) -> Void) throws(CodecError) {
        guard let frames else { return }
        while let samples = try frames.decodeNext(complete: complete) {
            guard !samples.isEmpty, let frameFormat = frames.format else { continue }
            format = frameFormat
            sink(PCMBlock(format: frameFormat, samples: samples))
        }
    }
}

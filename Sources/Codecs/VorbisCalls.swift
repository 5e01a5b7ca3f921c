import AudioCore
import CVorbis

// The only file in Codecs that calls libvorbis. The synthesis owns its C state.

/// libvorbis's decoder for one logical stream: three header packets, then audio packets in, planar
/// float out, converted to interleaved Int16.
final class VorbisSynthesis {
    private let info = UnsafeMutablePointer<vorbis_info>.allocate(capacity: 1)
    private let comment = UnsafeMutablePointer<vorbis_comment>.allocate(capacity: 1)
    private let dsp = UnsafeMutablePointer<vorbis_dsp_state>.allocate(capacity: 1)
    private let block = UnsafeMutablePointer<vorbis_block>.allocate(capacity: 1)
    private var headersSeen = 0
    private var output: UnsafeMutableBufferPointer<Int16> = .init(start: nil, count: 0)
    private(set) var format: AudioFormat?

    init() {
        vorbis_info_init(info)
        vorbis_comment_init(comment)
    }

    deinit {
        if format != nil {
            vorbis_block_clear(block)
            vorbis_dsp_clear(dsp)
        }
        vorbis_comment_clear(comment)
        vorbis_info_clear(info)
        info.deallocate()
        comment.deallocate()
        dsp.deallocate()
        block.deallocate()
        output.deallocate()
    }

    var needsHeaders: Bool { headersSeen < 3 }

    /// Takes the identification, comment or setup header, in that order.
    func header(_ packet: [UInt8]) throws(CodecError) {
        let result = Self.withPacket(packet, beginning: headersSeen == 0) { vorbis_synthesis_headerin(info, comment, $0) }
        guard result == 0 else {
            throw CodecError(
                kind: .invalidStream, codec: "vorbis", function: "vorbis_synthesis_headerin", code: result,
                message: "header \(headersSeen + 1) of 3 is not a Vorbis header")
        }
        headersSeen += 1
        guard headersSeen == 3 else { return }
        let channels = Int(info.pointee.channels), rate = info.pointee.rate
        guard channels > 0, channels <= 8, rate > 0, rate <= 192_000 else {
            throw CodecError(
                kind: .unsupported, codec: "vorbis", function: "vorbis_synthesis_headerin",
                message: "\(channels) channels at \(rate) Hz")
        }
        try check(vorbis_synthesis_init(dsp, info), "vorbis_synthesis_init")
        try check(vorbis_block_init(dsp, block), "vorbis_block_init")
        format = AudioFormat(sampleRate: rate, channels: channels)
    }

    /// Decodes one audio packet; calls `sink` with what it completes. Returns false if libvorbis
    /// rejected the packet (skipped).
    func decode(_ packet: [UInt8], into sink: (UnsafeBufferPointer<Int16>) -> Void) -> Bool {
        guard let format else { return false }
        let accepted = Self.withPacket(packet, beginning: false) { vorbis_synthesis(block, $0) } == 0
        guard accepted, vorbis_synthesis_blockin(dsp, block) == 0 else { return false }
        var planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
        while true {
            let frames = Int(vorbis_synthesis_pcmout(dsp, &planes))
            guard frames > 0, let planes else { return true }
            let channels = format.channels
            if output.count < frames * channels {
                output.deallocate()
                output = .allocate(capacity: frames * channels)
            }
            for channel in 0..<channels {
                let plane = planes[channel]!
                for frame in 0..<frames {
                    // clamped, then rounded half away from zero by truncation (one instruction, not a roundf call)
                    let value = max(-32_768, min(32_767, plane[frame] * 32_767))
                    output[frame * channels + channel] = Int16(value + (value < 0 ? -0.5 : 0.5))
                }
            }
            sink(UnsafeBufferPointer(rebasing: output[0..<(frames * channels)]))
            _ = vorbis_synthesis_read(dsp, Int32(frames))
        }
    }

    private static func withPacket(_ packet: [UInt8], beginning: Bool, _ body: (UnsafeMutablePointer<ogg_packet>) -> Int32) -> Int32 {
        var bytes = packet
        return bytes.withUnsafeMutableBufferPointer { buffer in
            var op = ogg_packet(
                packet: buffer.baseAddress, bytes: buffer.count, b_o_s: beginning ? 1 : 0, e_o_s: 0, granulepos: -1, packetno: 0)
            return body(&op)
        }
    }

    private func check(_ result: Int32, _ function: String) throws(CodecError) {
        if result != 0 { throw CodecError(kind: .library, codec: "vorbis", function: function, code: result, message: "failed") }
    }
}

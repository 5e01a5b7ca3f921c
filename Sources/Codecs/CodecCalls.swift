import AudioCore
import CMPG123
import COpus
import COpusShim

// The only file in Codecs that calls libmpg123 or libopus. Handles own their C objects.

// MARK: libmpg123

/// One mpg123 handle in feed mode, 16-bit signed output at any MPEG rate, native channel count.
final class MPG123Handle {
    private let handle: OpaquePointer
    let outputBlockBytes: Int

    enum Status {
        case needMore
        case newFormat(AudioFormat)
        case decoded(bytes: Int)
    }

    init() throws(CodecError) {
        _ = mpg123_init()  // a no-op since 1.27, required before; thread-safe either way
        var error: Int32 = 0
        guard let made = mpg123_new(nil, &error) else {
            throw CodecError(
                kind: .library, codec: "mp3", function: "mpg123_new", code: error,
                message: String(cString: mpg123_plain_strerror(error)))
        }
        handle = made
        outputBlockBytes = max(mpg123_outblock(made), 4608 * 2)
        let flags = Int(MPG123_QUIET.rawValue | MPG123_SKIP_ID3V2.rawValue | MPG123_GAPLESS.rawValue)
        try check(mpg123_param2(made, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0), "mpg123_param2(MPG123_ADD_FLAGS)")
        // Streams start mid-frame and carry junk after reconnects: search for sync up to 64 KiB.
        try check(mpg123_param2(made, Int32(MPG123_RESYNC_LIMIT.rawValue), 65_536, 0), "mpg123_param2(MPG123_RESYNC_LIMIT)")
        try check(mpg123_format_none(made), "mpg123_format_none")
        var rates: UnsafePointer<Int>?
        var count = 0
        mpg123_rates(&rates, &count)
        for index in 0..<count {
            let rate = rates![index]
            try check(
                mpg123_format(
                    made, rate, Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue),
                    Int32(MPG123_ENC_SIGNED_16.rawValue)), "mpg123_format")
        }
        try check(mpg123_open_feed(made), "mpg123_open_feed")
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    func feed(_ bytes: UnsafeRawBufferPointer) throws(CodecError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        try check(mpg123_feed(handle, base.assumingMemoryBound(to: UInt8.self), bytes.count), "mpg123_feed")
    }

    /// Decodes what is buffered into `output` (at most `outputBlockBytes`).
    func read(into output: UnsafeMutableRawBufferPointer) throws(CodecError) -> Status {
        var done = 0
        let result = mpg123_read(handle, output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count, &done)
        switch result {
        case Int32(MPG123_OK.rawValue):
            return .decoded(bytes: done)
        case Int32(MPG123_NEED_MORE.rawValue), Int32(MPG123_DONE.rawValue):
            return done > 0 ? .decoded(bytes: done) : .needMore
        case Int32(MPG123_NEW_FORMAT.rawValue):
            var rate = 0
            var channels: Int32 = 0
            var encoding: Int32 = 0
            try check(mpg123_getformat(handle, &rate, &channels, &encoding), "mpg123_getformat")
            guard rate > 0, channels > 0, encoding == Int32(MPG123_ENC_SIGNED_16.rawValue) else {
                throw CodecError(
                    kind: .unsupported, codec: "mp3", function: "mpg123_getformat",
                    message: "output \(rate) Hz, \(channels) channels, encoding \(encoding)")
            }
            return .newFormat(AudioFormat(sampleRate: rate, channels: Int(channels)))
        default:
            throw error(result, "mpg123_read")
        }
    }

    private func check(_ result: Int32, _ function: String) throws(CodecError) {
        if result != Int32(MPG123_OK.rawValue) { throw error(result, function) }
    }

    private func error(_ result: Int32, _ function: String) -> CodecError {
        let code = result == Int32(MPG123_ERR.rawValue) ? mpg123_errcode(handle) : result
        return CodecError(
            kind: .library, codec: "mp3", function: function, code: code,
            message: String(cString: mpg123_plain_strerror(code)))
    }
}

// MARK: libopus

/// A multistream decoder at 48 kHz (covers mapping family 0 as one stream too).
final class OpusMultistreamDecoderHandle {
    private let decoder: OpaquePointer
    let channels: Int

    init(channels: Int, streams: Int, coupledStreams: Int, mapping: [UInt8]) throws(CodecError) {
        var error: Int32 = 0
        let made = mapping.withUnsafeBufferPointer {
            opus_multistream_decoder_create(48_000, Int32(channels), Int32(streams), Int32(coupledStreams), $0.baseAddress!, &error)
        }
        guard let made, error == OPUS_OK else {
            throw CodecError(
                kind: .library, codec: "opus", function: "opus_multistream_decoder_create", code: error,
                message: String(cString: opus_strerror(error)))
        }
        decoder = made
        self.channels = channels
    }

    deinit {
        opus_multistream_decoder_destroy(decoder)
    }

    func setGain(q8 gain: Int) throws(CodecError) {
        let result = cshim_opus_ms_decoder_set_gain(decoder, Int32(gain))
        if result != OPUS_OK { throw Self.error(result, "opus_multistream_decoder_ctl(OPUS_SET_GAIN)") }
    }

    /// Decodes one packet into `output` (capacity ≥ 5760 × channels); returns frames per channel.
    func decode(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        let maxFrames = Int32(output.count / channels)
        let result = opus_multistream_decode(
            decoder, packet.baseAddress!.assumingMemoryBound(to: UInt8.self),
            Int32(packet.count), output.baseAddress!, maxFrames, 0)
        if result < 0 { throw Self.error(result, "opus_multistream_decode") }
        return Int(result)
    }

    static func error(_ code: Int32, _ function: String) -> CodecError {
        CodecError(kind: .library, codec: "opus", function: function, code: code, message: String(cString: opus_strerror(code)))
    }
}

/// A plain Opus encoder (tests and fixture generation; the appliance only decodes).
final class OpusEncoderHandle {
    private let encoder: OpaquePointer
    let channels: Int

    init(sampleRate: Int, channels: Int, bitrate: Int) throws(CodecError) {
        var error: Int32 = 0
        guard let made = opus_encoder_create(Int32(sampleRate), Int32(channels), OPUS_APPLICATION_AUDIO, &error),
            error == OPUS_OK
        else {
            throw OpusMultistreamDecoderHandle.error(error, "opus_encoder_create")
        }
        encoder = made
        self.channels = channels
        let result = cshim_opus_encoder_set_bitrate(made, Int32(bitrate))
        if result != OPUS_OK { throw OpusMultistreamDecoderHandle.error(result, "opus_encoder_ctl(OPUS_SET_BITRATE)") }
    }

    deinit {
        opus_encoder_destroy(encoder)
    }

    var lookahead: Int {
        var samples: Int32 = 0
        _ = cshim_opus_encoder_get_lookahead(encoder, &samples)
        return Int(samples)
    }

    func encode(_ pcm: [Int16], frames: Int) throws(CodecError) -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: 4_000)
        let count = pcm.withUnsafeBufferPointer { pcm in
            packet.withUnsafeMutableBufferPointer {
                opus_encode(encoder, pcm.baseAddress!, Int32(frames), $0.baseAddress!, Int32($0.count))
            }
        }
        if count < 0 { throw OpusMultistreamDecoderHandle.error(count, "opus_encode") }
        return Array(packet[0..<Int(count)])
    }
}

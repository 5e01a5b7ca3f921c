import AudioCore
import CFLAC

// The only file in Codecs that calls libFLAC. The handle owns its decoder.

/// libFLAC's stream decoder driven by pushed bytes: libFLAC pulls through a read callback, so the bytes
/// wait here, and a frame is decoded only once its bytes are likely all here (`readyBytes`). When a
/// frame runs out of bytes anyway, the read is aborted, the decoder flushed and the frame retried from
/// its first byte once more bytes arrive.
final class FLACFrameDecoder {
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    /// Bytes not yet consumed by a decoded frame; `bytes[0]` is at stream offset `base`.
    private var bytes: [UInt8] = []
    private var base: UInt64 = 0
    /// Stream offset of the next byte handed to libFLAC, and of the first byte no frame has consumed.
    private var delivered: UInt64 = 0
    private var consumed: UInt64 = 0
    private var output: UnsafeMutableBufferPointer<Int16> = .init(start: nil, count: 0)
    private var frameSamples = 0
    private(set) var format: AudioFormat?
    /// A frame's worth of bytes (STREAMINFO's largest frame), waited for before decoding.
    var readyBytes = 65_536
    /// After a frame ran out of bytes: how many must wait before it is tried again.
    private var retryAt: UInt64 = 0
    /// Frames libFLAC reported lost or broken (it resyncs by itself).
    private(set) var streamErrors = 0

    init() throws(CodecError) {
        guard let made = FLAC__stream_decoder_new() else {
            throw CodecError(kind: .library, codec: "flac", function: "FLAC__stream_decoder_new", message: "out of memory")
        }
        decoder = made
        let status = FLAC__stream_decoder_init_stream(
            made,
            { _, buffer, count, client in
                FLACFrameDecoder.from(client).read(into: buffer!, count: count!)
            },
            nil,
            { _, offset, client in
                offset!.pointee = FLACFrameDecoder.from(client).delivered
                return FLAC__STREAM_DECODER_TELL_STATUS_OK
            },
            nil, nil,
            { _, frame, planes, client in
                FLACFrameDecoder.from(client).write(frame!.pointee.header, planes!)
            },
            nil,
            { _, _, client in
                FLACFrameDecoder.from(client).streamErrors += 1
            },
            Unmanaged.passUnretained(self).toOpaque())
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            FLAC__stream_decoder_delete(made)
            throw CodecError(
                kind: .library, codec: "flac", function: "FLAC__stream_decoder_init_stream", code: Int32(status.rawValue),
                message: "initialization failed")
        }
    }

    deinit {
        FLAC__stream_decoder_delete(decoder)
        output.deallocate()
    }

    private static func from(_ client: UnsafeMutableRawPointer?) -> FLACFrameDecoder {
        Unmanaged<FLACFrameDecoder>.fromOpaque(client!).takeUnretainedValue()
    }

    /// Bytes appended that no decoded frame or metadata block has consumed yet.
    var pendingBytes: Int { Int(base + UInt64(bytes.count) - consumed) }

    func append(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }

    func append(_ more: [UInt8]) {
        bytes.append(contentsOf: more)
    }

    /// Decodes the next metadata block or frame if its bytes are here. `complete`: no more bytes will come
    /// for what is waiting (an Ogg packet, the end of a file), so a frame that runs out is dropped.
    /// Returns the frame's samples (empty for a metadata block), or nil when it needs more bytes.
    func decodeNext(complete: Bool) throws(CodecError) -> UnsafeBufferPointer<Int16>? {
        let end = base + UInt64(bytes.count)
        let waiting = end - consumed
        guard waiting > 0, complete || waiting >= max(UInt64(readyBytes), retryAt) else { return nil }
        frameSamples = 0
        let done = FLAC__stream_decoder_process_single(decoder) != 0
        let state = FLAC__stream_decoder_get_state(decoder)
        if state == FLAC__STREAM_DECODER_ABORTED {
            // Ran out of bytes mid-frame. Retried from its first byte once twice as many bytes wait, so
            // junk without a frame is scanned a bounded number of times (linear, not quadratic).
            _ = FLAC__stream_decoder_flush(decoder)
            if complete {
                consumed = end
                delivered = end
                compact()
            } else {
                delivered = consumed
                retryAt = waiting * 2
            }
            return nil
        }
        retryAt = 0
        guard done else {
            throw CodecError(
                kind: .library, codec: "flac", function: "FLAC__stream_decoder_process_single", code: Int32(state.rawValue),
                message: String(cString: FLAC__stream_decoder_get_resolved_state_string(decoder)))
        }
        var position: UInt64 = 0
        consumed = FLAC__stream_decoder_get_decode_position(decoder, &position) != 0 ? position : delivered
        compact()
        return UnsafeBufferPointer(rebasing: output[0..<frameSamples])
    }

    /// Drops consumed bytes once they are half the buffer (amortized: each byte moves a bounded number of times).
    private func compact() {
        let drop = Int(min(consumed - base, UInt64(bytes.count)))
        if drop > 0, drop >= bytes.count / 2 {
            bytes.removeSubrange(0..<drop)
            base += UInt64(drop)
        }
    }

    private func read(into buffer: UnsafeMutablePointer<FLAC__byte>, count: UnsafeMutablePointer<Int>) -> FLAC__StreamDecoderReadStatus {
        let available = Int(base + UInt64(bytes.count) - delivered)
        guard available > 0 else {
            count.pointee = 0
            return FLAC__STREAM_DECODER_READ_STATUS_ABORT
        }
        let n = min(available, count.pointee)
        let start = Int(delivered - base)
        bytes.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + start, count: n)
        }
        delivered += UInt64(n)
        count.pointee = n
        return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }

    private func write(_ header: FLAC__FrameHeader, _ planes: UnsafePointer<UnsafePointer<FLAC__int32>?>) -> FLAC__StreamDecoderWriteStatus {
        let frames = Int(header.blocksize), channels = Int(header.channels), bits = Int(header.bits_per_sample)
        guard channels > 0, channels <= 8, bits >= 4, bits <= 32, header.sample_rate > 0 else {
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        if output.count < frames * channels {
            output.deallocate()
            output = .allocate(capacity: frames * channels)
        }
        for channel in 0..<channels {
            let plane = planes[channel]!
            for frame in 0..<frames {
                let sample = plane[frame]
                output[frame * channels + channel] = Int16(truncatingIfNeeded: bits >= 16 ? sample >> (bits - 16) : sample << (16 - bits))
            }
        }
        frameSamples = frames * channels
        format = AudioFormat(sampleRate: Int(header.sample_rate), channels: channels)
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }
}

import AudioCore
import CFAAD2

// The only file in Codecs that calls libfaad. The handle owns its decoder.

/// One libfaad decoder for an ADTS stream: AAC-LC, HE-AAC (SBR) and HE-AAC v2 (parametric stereo),
/// 16-bit interleaved out, multichannel mixed down to stereo.
final class FAADHandle {
    private let handle: NeAACDecHandle

    enum Frame {
        case decoded(UnsafeBufferPointer<Int16>, AudioFormat)
        /// libfaad rejected the frame (its error text); the stream goes on with the next.
        case rejected(String)
    }

    /// Opens a decoder configured from the stream's first ADTS frame.
    convenience init(firstFrame: UnsafeRawBufferPointer) throws(CodecError) {
        try self.init { handle, rate, channels in
            NeAACDecInit(handle, Self.bytes(firstFrame), UInt(firstFrame.count), &rate, &channels) >= 0
        }
    }

    /// Opens a decoder for raw frames (MP4) configured by their AudioSpecificConfig.
    convenience init(audioSpecificConfig config: [UInt8]) throws(CodecError) {
        var config = config
        try self.init { handle, rate, channels in
            config.withUnsafeMutableBufferPointer { NeAACDecInit2(handle, $0.baseAddress, UInt($0.count), &rate, &channels) } == 0
        }
    }

    private init(configure: (NeAACDecHandle, inout UInt, inout UInt8) -> Bool) throws(CodecError) {
        guard let made = NeAACDecOpen() else {
            throw CodecError(kind: .library, codec: "aac", function: "NeAACDecOpen", message: "out of memory")
        }
        handle = made
        guard let configuration = NeAACDecGetCurrentConfiguration(made) else {
            throw CodecError(kind: .library, codec: "aac", function: "NeAACDecGetCurrentConfiguration", message: "no configuration")
        }
        configuration.pointee.outputFormat = UInt8(FAAD_FMT_16BIT)
        configuration.pointee.downMatrix = 1
        guard NeAACDecSetConfiguration(made, configuration) == 1 else {
            throw CodecError(kind: .library, codec: "aac", function: "NeAACDecSetConfiguration", message: "configuration refused")
        }
        var rate: UInt = 0
        var channels: UInt8 = 0
        guard configure(made, &rate, &channels) else {
            throw CodecError(
                kind: .invalidStream, codec: "aac", function: "NeAACDecInit", message: "the stream's configuration is not one libfaad decodes")
        }
    }

    deinit {
        NeAACDecClose(handle)
    }

    func decode(_ frame: UnsafeRawBufferPointer) -> Frame {
        var info = NeAACDecFrameInfo()
        let output = NeAACDecDecode(handle, &info, Self.bytes(frame), UInt(frame.count))
        guard info.error == 0 else {
            return .rejected(NeAACDecGetErrorMessage(info.error).map { String(cString: $0) } ?? "error \(info.error)")
        }
        guard let output, info.samples > 0, info.channels > 0, info.samplerate > 0 else {
            return .decoded(UnsafeBufferPointer(start: nil, count: 0), AudioFormat(sampleRate: 44_100, channels: 2))
        }
        let samples = UnsafeBufferPointer(start: output.assumingMemoryBound(to: Int16.self), count: Int(info.samples))
        return .decoded(samples, AudioFormat(sampleRate: Int(info.samplerate), channels: Int(info.channels)))
    }

    /// libfaad's API takes mutable pointers it only reads through.
    private static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafeMutablePointer<UInt8> {
        UnsafeMutablePointer(mutating: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
    }
}

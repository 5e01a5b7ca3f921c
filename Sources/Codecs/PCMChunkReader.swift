import AudioCore

/// Raw little-endian S16 interleaved bytes in arbitrary pieces to whole frames: the bytes of a frame cut
/// at a piece's end wait for the next piece. The output buffer is kept, grown only by a larger piece.
final class PCMChunkReader {
    let format: AudioFormat
    private var carry: [UInt8] = []
    private var output: UnsafeMutableBufferPointer<Int16> = .init(start: nil, count: 0)

    init(format: AudioFormat) {
        self.format = format
        carry.reserveCapacity(format.bytesPerFrame)
    }

    deinit {
        output.deallocate()
    }

    /// Bytes of a frame that wait for the rest of it.
    var pendingBytes: Int { carry.count }

    func decode(_ bytes: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) {
        let frameBytes = format.bytesPerFrame
        let total = carry.count + bytes.count
        let samples = total / frameBytes * format.channels
        guard samples > 0 else {
            carry.append(contentsOf: bytes)
            return
        }
        if output.count < samples {
            output.deallocate()
            output = .allocate(capacity: samples)
        }
        let carried = carry.count
        carry.withUnsafeBufferPointer { head in
            func byte(_ index: Int) -> UInt8 { index < carried ? head[index] : bytes[index - carried] }
            for index in 0..<samples {
                output[index] = Int16(bitPattern: UInt16(byte(2 * index)) | UInt16(byte(2 * index + 1)) << 8)
            }
        }
        // A whole frame was made, so the carried bytes are all used and the rest is the new piece's tail.
        carry.removeAll(keepingCapacity: true)
        carry.append(contentsOf: bytes[(samples * 2 - carried)...])
        sink(PCMBlock(format: format, samples: UnsafeBufferPointer(rebasing: output[0..<samples])))
    }
}

import AudioCore

/// AAC in an MP4/M4A file (a podcast episode), streamed: the `moov` index is read as it arrives, then
/// each sample's bytes go to libfaad as they stream past. A file whose index is after its audio (no
/// "faststart") or a podcast resumed mid-file asks its source for other bytes through `wantedOffset`
/// (an HTTP Range request): the index first, then the audio from the right sample on.
public final class MP4Decoder: StreamDecoder {
    public static let maxIndexBytes = 64 << 20
    /// Bytes between the index and the first sample to play that are read through rather than skipped
    /// with a new request.
    static let longestGapStreamed = 1 << 16

    /// File offset of the next byte fed.
    private var position = 0
    /// A box header being gathered, or the `moov` payload.
    private var pending: [UInt8] = []
    /// A box being gathered whole (`moov`, `moof`): its type, first byte and end.
    private var collecting: (type: String, start: Int, end: Int)?
    /// A fragmented file's current fragment: its samples (file offsets), the next one's index, and
    /// where its `mdat` ends.
    private var fragmentSamples: [(offset: Int, size: Int)] = []
    private var fragmentIndex = 0
    private var fragmentEnd: Int?
    private var skipUntil = 0
    private var track: MP4AudioTrack?
    private var cursor: MP4SampleCursor?
    private var sample: (offset: Int, size: Int)?
    private var sampleBytes: [UInt8] = []
    private var faad: FAADHandle?
    /// Where a resumed file should play from, once the index says which sample that is.
    private var resumeTarget: Int?
    public private(set) var wantedOffset: Int?
    public private(set) var format: AudioFormat?
    /// Samples libfaad rejected (skipped).
    public private(set) var corruptFrames = 0

    public init() {}

    public func seek(to offset: Int) {
        let asked = wantedOffset == offset
        wantedOffset = nil
        pending.removeAll()
        if track == nil {
            collecting = nil
            skipUntil = 0
            if !asked, offset > 0 {
                // a resumed file: read the index from the start, then come back here
                resumeTarget = offset
                wantedOffset = 0
            }
            position = offset
        } else if offset != position {
            position = offset
            sampleBytes.removeAll()
            resumeTarget = offset
            chooseFirstSample()
        }
    }

    public func reset() throws(CodecError) {
        position = 0
        pending.removeAll()
        collecting = nil
        skipUntil = 0
        fragmentSamples = []
        fragmentIndex = 0
        fragmentEnd = nil
        track = nil
        cursor = nil
        sample = nil
        sampleBytes.removeAll()
        faad = nil
        resumeTarget = nil
        wantedOffset = nil
        format = nil
    }

    public func decode(_ bytes: UnsafeRawBufferPointer, into sink: (PCMBlock) -> Void) throws(CodecError) {
        var rest = bytes[...]
        while !rest.isEmpty, wantedOffset == nil {
            let used: Int
            if position < skipUntil {
                used = min(skipUntil - position, rest.count)
                position += used
            } else if track != nil, sample != nil {
                used = try readSamples(rest, sink)
            } else if track != nil, track?.isFragmented != true {
                used = rest.count  // past the last sample
                position += used
            } else {
                used = try readBox(rest)
            }
            rest = rest.dropFirst(used)
        }
    }

    /// Top-level boxes: `moov` (the index) until the track is known, then, in a fragmented file (an HLS
    /// stream), each `moof` and the `mdat` its samples are in. Returns the bytes used.
    private func readBox(_ bytes: Slice<UnsafeRawBufferPointer>) throws(CodecError) -> Int {
        if let collecting {
            let n = min(collecting.end - position, bytes.count)
            pending.append(contentsOf: bytes.prefix(n))
            position += n
            if position == collecting.end {
                self.collecting = nil
                if collecting.type == "moov" { try indexRead() } else { try fragmentRead(start: collecting.start) }
            }
            return n
        }
        let needed = pending.count >= 4 && pending[0..<4] == [0, 0, 0, 1] ? 16 : 8
        let n = min(needed - pending.count, bytes.count)
        pending.append(contentsOf: bytes.prefix(n))
        position += n
        guard pending.count == needed else { return n }
        let reader = MP4BoxReader(pending)
        var size = Int(try reader.u32(at: 0))
        if needed == 16 {
            let large = UInt64(try reader.u32(at: 8)) << 32 | UInt64(try reader.u32(at: 12))
            size = large <= UInt64(Int.max / 2) ? Int(large) : -1
        }
        let type = reader.fourCC(at: 4)
        let start = position - needed
        pending.removeAll()
        switch type {
        case "moov" where track == nil, "moof" where track != nil:
            guard size > needed, size - needed <= Self.maxIndexBytes else {
                throw CodecError(kind: .unsupported, codec: "mp4", function: type, message: "an index of \(size) bytes")
            }
            collecting = (type, start, start + size)
        case "mdat" where track == nil:
            guard size != 0 else {
                throw CodecError(
                    kind: .unsupported, codec: "mp4", function: "mdat", message: "its audio runs to the end of the file, with the index nowhere")
            }
            wantedOffset = start + size  // the index is after the audio: fetch it, then come back
        case "mdat":
            // a fragment's samples: play those its `moof` listed, then go on after the box
            fragmentEnd = size == 0 ? nil : start + size
            sample = fragmentSamples.first
            fragmentIndex = 1
        default:
            guard size >= needed else { throw CodecError(kind: .invalidStream, codec: "mp4", function: type, message: "box size \(size)") }
            skipUntil = start + size
        }
        return n
    }

    /// A `moof` starting at `start`: where its first track fragment's samples are (`pending` holds it).
    private func fragmentRead(start: Int) throws(CodecError) {
        let fragment = try MP4AudioTrack.fragmentSamples(moof: pending, moofStart: start)
        pending.removeAll()
        fragmentSamples = fragment
    }

    private func indexRead() throws(CodecError) {
        let parsed = try MP4AudioTrack(moov: pending)
        pending.removeAll()
        faad = try FAADHandle(audioSpecificConfig: parsed.audioSpecificConfig)
        track = parsed
        chooseFirstSample()
    }

    /// The first sample at or after the resume point (the file's first otherwise); asks for its bytes
    /// when they are behind the stream's position.
    private func chooseFirstSample() {
        guard let track else { return }
        var walker = track.samples()
        let target = resumeTarget ?? 0
        sample = nil
        while let next = walker.next() {
            guard next.offset <= UInt64(Int.max / 2) else { break }
            if Int(next.offset) >= target {
                sample = (Int(next.offset), next.size)
                break
            }
        }
        cursor = walker
        resumeTarget = nil
        // behind the stream, or far ahead of it (a resumed file): ask for its bytes rather than wait
        if let sample, sample.offset < position || sample.offset - position > Self.longestGapStreamed {
            wantedOffset = sample.offset
        }
    }

    /// Gathers the current sample's bytes, skipping what lies between samples; returns the bytes used.
    private func readSamples(_ bytes: Slice<UnsafeRawBufferPointer>, _ sink: (PCMBlock) -> Void) throws(CodecError) -> Int {
        guard let current = sample else {  // past the last sample
            position += bytes.count
            return bytes.count
        }
        let at = current.offset + sampleBytes.count
        if at > position {
            let gap = min(at - position, bytes.count)
            position += gap
            return gap
        }
        guard at == position else {
            advance()  // a sample behind the stream (overlapping tables): skip it
            return 0
        }
        let n = min(current.size - sampleBytes.count, bytes.count)
        sampleBytes.append(contentsOf: bytes.prefix(n))
        position += n
        if sampleBytes.count == current.size {
            try decodeSample(sink)
            advance()
        }
        return n
    }

    private func advance() {
        sampleBytes.removeAll(keepingCapacity: true)
        if track?.isFragmented == true {
            sample = fragmentIndex < fragmentSamples.count ? fragmentSamples[fragmentIndex] : nil
            fragmentIndex += 1
            if sample == nil, let fragmentEnd { skipUntil = max(skipUntil, fragmentEnd) }
        } else {
            sample = cursor?.next().flatMap { $0.offset <= UInt64(Int.max / 2) ? (Int($0.offset), $0.size) : nil }
        }
    }

    private func decodeSample(_ sink: (PCMBlock) -> Void) throws(CodecError) {
        guard let faad else { return }
        let result = sampleBytes.withUnsafeBytes { faad.decode($0) }
        switch result {
        case .rejected:
            corruptFrames += 1
        case .decoded(let samples, let frameFormat):
            guard !samples.isEmpty else { return }
            format = frameFormat
            sink(PCMBlock(format: frameFormat, samples: samples))
        }
    }
}

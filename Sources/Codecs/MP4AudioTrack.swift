/// The first AAC audio track of an MP4/M4A `moov` box, as streaming decode needs it: the decoder's
/// AudioSpecificConfig and where each sample (one AAC frame) lies in the file. Ours because the
/// libraries Debian has for MP4 (libavformat, gpac, mp4v2) are either far larger than the rest of the
/// product or read files, not streams; the boxes needed are few and fixed (ISO/IEC 14496-12 and -14).
/// Every count and length is checked against the bytes that hold it, so hostile input costs at most
/// one pass over `moov`.
public struct MP4AudioTrack: Sendable, Equatable {
    public static let maxSamples = 20_000_000

    public var audioSpecificConfig: [UInt8]
    public var timescale: UInt32
    /// Every sample's size, or one size for all (`uniformSize`, then `sampleSizes` is empty).
    var sampleSizes: [UInt32]
    var uniformSize: UInt32
    public private(set) var sampleCount: Int
    var chunkOffsets: [UInt64]
    /// `stsc`: from chunk `firstChunk` (1-based) on, each chunk holds `samples` samples.
    var chunkRuns: [(firstChunk: UInt32, samples: UInt32)]
    /// The samples are in `moof` fragments after the index (`mvex`), as in HLS's fMP4 segments.
    public private(set) var isFragmented = false

    public static func == (lhs: MP4AudioTrack, rhs: MP4AudioTrack) -> Bool {
        lhs.audioSpecificConfig == rhs.audioSpecificConfig && lhs.timescale == rhs.timescale && lhs.sampleSizes == rhs.sampleSizes
            && lhs.uniformSize == rhs.uniformSize && lhs.sampleCount == rhs.sampleCount && lhs.chunkOffsets == rhs.chunkOffsets
            && lhs.chunkRuns.elementsEqual(rhs.chunkRuns) { $0 == $1 }
    }

    /// Parses a whole `moov` box's payload (without its 8-byte header).
    public init(moov: [UInt8]) throws(CodecError) {
        var reader = MP4BoxReader(moov)
        var found: MP4AudioTrack?
        var otherAudio: String?
        for trak in try reader.children(in: 0..<moov.count) where trak.type == "trak" {
            switch try Self.audio(in: trak.range, of: &reader) {
            case .aac(let track)?: found = track
            case .other(let name)?: otherAudio = otherAudio ?? name
            case nil: continue
            }
            if found != nil { break }
        }
        guard var found else {
            if let otherAudio {
                throw CodecError(kind: .unsupported, codec: "mp4", function: "stsd", message: "the file's audio is \(otherAudio), not AAC")
            }
            throw CodecError(kind: .invalidStream, codec: "mp4", function: "moov", message: "no audio track")
        }
        found.isFragmented = try reader.child("mvex", in: 0..<moov.count) != nil
        self = found
    }

    /// The samples of a `moof` payload's first track fragment, as file offsets: from its `tfhd` base
    /// (the `moof`'s own first byte, `moofStart`, unless it names another) plus the `trun` data offset,
    /// each `trun` sample (or `tfhd`'s default size) back to back.
    public static func fragmentSamples(moof: [UInt8], moofStart: Int) throws(CodecError) -> [(offset: Int, size: Int)] {
        let reader = MP4BoxReader(moof)
        guard let traf = try reader.child("traf", in: 0..<moof.count), let tfhd = try reader.child("tfhd", in: traf) else {
            throw CodecError(kind: .invalidStream, codec: "mp4", function: "moof", message: "no track fragment")
        }
        let tfhdFlags = try reader.u32(at: tfhd.lowerBound) & 0xFF_FFFF
        var at = tfhd.lowerBound + 8
        var base = moofStart
        if tfhdFlags & 0x01 != 0 {
            let offset = UInt64(try reader.u32(at: at)) << 32 | UInt64(try reader.u32(at: at + 4))
            guard offset <= UInt64(Int.max / 4) else {
                throw CodecError(kind: .invalidStream, codec: "mp4", function: "tfhd", message: "base offset")
            }
            base = Int(offset)
            at += 8
        }
        if tfhdFlags & 0x02 != 0 { at += 4 }
        if tfhdFlags & 0x08 != 0 { at += 4 }
        let defaultSize = tfhdFlags & 0x10 != 0 ? Int(try reader.u32(at: at)) : 0
        var samples: [(offset: Int, size: Int)] = []
        for trun in try reader.children(in: traf) where trun.type == "trun" {
            let flags = try reader.u32(at: trun.range.lowerBound) & 0xFF_FFFF
            let count = Int(try reader.u32(at: trun.range.lowerBound + 4))
            var field = trun.range.lowerBound + 8
            var offset = base
            if flags & 0x01 != 0 {
                offset = base + Int(Int32(bitPattern: try reader.u32(at: field)))
                field += 4
            }
            if flags & 0x04 != 0 { field += 4 }
            let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count * 4
            guard count >= 0, count <= maxSamples, perSample == 0 || count <= (trun.range.upperBound - field) / perSample else {
                throw CodecError(kind: .invalidStream, codec: "mp4", function: "trun", message: "\(count) samples do not fit their box")
            }
            for _ in 0..<count {
                var size = defaultSize
                var entry = field + (flags & 0x100 != 0 ? 4 : 0)
                if flags & 0x200 != 0 {
                    size = Int(try reader.u32(at: entry))
                    entry += 4
                }
                field += perSample
                guard offset >= 0, size >= 0, size <= 1 << 20 else { break }
                samples.append((offset, size))
                offset += size
            }
        }
        return samples
    }

    private enum TrackAudio {
        case aac(MP4AudioTrack)
        case other(String)
    }

    private static func audio(in trak: Range<Int>, of reader: inout MP4BoxReader) throws(CodecError) -> TrackAudio? {
        guard let mdia = try reader.child("mdia", in: trak), let hdlr = try reader.child("hdlr", in: mdia),
            reader.bytes[hdlr].count >= 12, reader.fourCC(at: hdlr.lowerBound + 8) == "soun",
            let mdhd = try reader.child("mdhd", in: mdia), let minf = try reader.child("minf", in: mdia),
            let stbl = try reader.child("stbl", in: minf), let stsd = try reader.child("stsd", in: stbl)
        else { return nil }
        let version = try reader.u8(at: mdhd.lowerBound)
        let timescale = try reader.u32(at: mdhd.lowerBound + (version == 1 ? 20 : 12))
        // stsd: version/flags, entry count, then sample entries; the first decides
        guard let entry = try reader.children(in: (stsd.lowerBound + 8)..<stsd.upperBound).first else { return nil }
        guard entry.type == "mp4a" else { return .other(Self.name(of: entry.type)) }
        // AudioSampleEntry: 8 bytes of SampleEntry, 20 of audio fields (QuickTime version 1 adds 16, 2 adds 36)
        let soundVersion = try reader.u16(at: entry.range.lowerBound + 8)
        let fields = 28 + (soundVersion == 1 ? 16 : soundVersion == 2 ? 36 : 0)
        guard entry.range.count >= fields, let esds = try reader.child("esds", in: (entry.range.lowerBound + fields)..<entry.range.upperBound)
        else {
            throw CodecError(kind: .invalidStream, codec: "mp4", function: "mp4a", message: "no esds box")
        }
        let (objectType, config) = try reader.decoderConfig(in: (esds.lowerBound + 4)..<esds.upperBound)
        guard [0x40, 0x66, 0x67, 0x68].contains(objectType) else {
            return .other(objectType == 0x69 || objectType == 0x6B ? "MP3" : "object type 0x\(String(objectType, radix: 16))")
        }
        guard !config.isEmpty else {
            throw CodecError(kind: .invalidStream, codec: "mp4", function: "esds", message: "no AudioSpecificConfig")
        }
        var track = MP4AudioTrack(config: config, timescale: timescale)
        try track.readSampleTables(in: stbl, of: &reader)
        return .aac(track)
    }

    private init(config: [UInt8], timescale: UInt32) {
        audioSpecificConfig = config
        self.timescale = timescale
        sampleSizes = []
        uniformSize = 0
        sampleCount = 0
        chunkOffsets = []
        chunkRuns = []
    }

    private mutating func readSampleTables(in stbl: Range<Int>, of reader: inout MP4BoxReader) throws(CodecError) {
        guard let stsz = try reader.child("stsz", in: stbl), let stsc = try reader.child("stsc", in: stbl) else {
            throw CodecError(kind: .invalidStream, codec: "mp4", function: "stbl", message: "no stsz or stsc")
        }
        uniformSize = try reader.u32(at: stsz.lowerBound + 4)
        let count = Int(try reader.u32(at: stsz.lowerBound + 8))
        guard count <= Self.maxSamples else {
            throw CodecError(kind: .unsupported, codec: "mp4", function: "stsz", message: "\(count) samples")
        }
        sampleCount = count
        if uniformSize == 0 { sampleSizes = try reader.u32s(count: count, at: stsz.lowerBound + 12, within: stsz) }
        let runs = Int(try reader.u32(at: stsc.lowerBound + 4))
        let runValues = try reader.u32s(count: runs * 3, at: stsc.lowerBound + 8, within: stsc)
        chunkRuns = stride(from: 0, to: runValues.count, by: 3).map { (runValues[$0], runValues[$0 + 1]) }
        if let stco = try reader.child("stco", in: stbl) {
            let n = Int(try reader.u32(at: stco.lowerBound + 4))
            chunkOffsets = try reader.u32s(count: n, at: stco.lowerBound + 8, within: stco).map(UInt64.init)
        } else if let co64 = try reader.child("co64", in: stbl) {
            let n = Int(try reader.u32(at: co64.lowerBound + 4))
            let halves = try reader.u32s(count: n * 2, at: co64.lowerBound + 8, within: co64)
            chunkOffsets = stride(from: 0, to: halves.count, by: 2).map { UInt64(halves[$0]) << 32 | UInt64(halves[$0 + 1]) }
        } else {
            throw CodecError(kind: .invalidStream, codec: "mp4", function: "stbl", message: "no stco or co64")
        }
    }

    private static func name(of type: String) -> String {
        switch type {
        case "alac": "ALAC"
        case "Opus": "Opus"
        case "fLaC": "FLAC"
        case "ac-3": "AC-3"
        case "ec-3": "E-AC-3"
        default: "'\(type)'"
        }
    }

    /// The samples in file order: (offset, size) of each, from sample `index` on.
    public func samples(from index: Int = 0) -> MP4SampleCursor {
        MP4SampleCursor(track: self, start: index)
    }
}

/// Walks a track's samples: chunk by chunk (`stco`), each chunk's samples (`stsc`) back to back.
public struct MP4SampleCursor: Sendable {
    let track: MP4AudioTrack
    private(set) var index = 0
    private var chunk = 0  // 0-based
    private var inChunk = 0
    private var offset: UInt64 = 0
    private var run = 0

    init(track: MP4AudioTrack, start: Int) {
        self.track = track
        if let first = track.chunkOffsets.first { offset = first }
        while index < start, next() != nil {}
    }

    /// The next sample's (offset, size), or nil after the last (or where the tables run out).
    public mutating func next() -> (offset: UInt64, size: Int)? {
        guard index < track.sampleCount, chunk < track.chunkOffsets.count else { return nil }
        while run + 1 < track.chunkRuns.count, Int(track.chunkRuns[run + 1].firstChunk) <= chunk + 1 { run += 1 }
        let perChunk = track.chunkRuns.isEmpty ? 1 : Int(track.chunkRuns[run].samples)
        guard perChunk > 0 else { return nil }
        let size = Int(track.uniformSize != 0 ? track.uniformSize : track.sampleSizes[index])
        let sample = (offset, size)
        index += 1
        inChunk += 1
        offset += UInt64(size)
        if inChunk >= perChunk {
            inChunk = 0
            chunk += 1
            if chunk < track.chunkOffsets.count { offset = track.chunkOffsets[chunk] }
        }
        return sample
    }
}

import Basics

/// Splits an ICY (Shoutcast/Icecast) body into audio and metadata: after every `metaInterval` audio
/// bytes comes one length byte L and L × 16 bytes of metadata. Works for any chunking of the input.
/// Without a meta interval (server sent no `icy-metaint`) everything is audio.
public struct IcyDemuxer: Sendable {
    public let metaInterval: Int?
    private var audioRemaining: Int
    private var metadataRemaining = 0
    private var expectingLength = false
    private var metadata: [UInt8] = []
    /// Metadata blocks seen (including empty ones, which are the common case).
    public private(set) var blocks = 0
    /// Blocks longer than this are skipped unparsed (and counted). The wire format caps them at 4080.
    public let maxMetadataBytes: Int
    public private(set) var oversizedBlocks = 0
    private var discarding = false
    public let maxTitleCharacters: Int

    public init(metaInterval: Int?, maxTitleCharacters: Int = 300, maxMetadataBytes: Int = 4_080) {
        self.metaInterval = metaInterval.flatMap { $0 > 0 ? $0 : nil }
        audioRemaining = self.metaInterval ?? .max
        self.maxTitleCharacters = maxTitleCharacters
        self.maxMetadataBytes = maxMetadataBytes
        metadata.reserveCapacity(min(maxMetadataBytes, 4_080))
    }

    /// Feeds body bytes. `audio` gets the audio runs in order (slices of `bytes`); `onMetadata` gets each
    /// non-empty metadata block.
    public mutating func push(
        _ bytes: UnsafeRawBufferPointer,
        audio: (UnsafeRawBufferPointer) throws -> Void,
        onMetadata: (IcyMetadata) -> Void
    ) rethrows {
        guard let metaInterval else {
            if !bytes.isEmpty { try audio(bytes) }
            return
        }
        var offset = 0
        while offset < bytes.count {
            if metadataRemaining > 0 {
                let take = min(metadataRemaining, bytes.count - offset)
                if !discarding { metadata.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)])) }
                offset += take
                metadataRemaining -= take
                if metadataRemaining == 0 { finishBlock(onMetadata) }
            } else if expectingLength {
                let length = Int(bytes[offset]) * 16
                offset += 1
                expectingLength = false
                blocks += 1
                if length == 0 {
                    audioRemaining = metaInterval
                } else {
                    metadataRemaining = length
                    discarding = length > maxMetadataBytes
                    if discarding { oversizedBlocks += 1 }
                    metadata.removeAll(keepingCapacity: true)
                }
            } else {
                let take = min(audioRemaining, bytes.count - offset)
                if take > 0 { try audio(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)])) }
                offset += take
                audioRemaining -= take
                if audioRemaining == 0 { expectingLength = true }
            }
        }
    }

    /// Array convenience: returns the audio bytes and the metadata blocks.
    public mutating func push(_ bytes: [UInt8]) -> (audio: [UInt8], metadata: [IcyMetadata]) {
        var audioBytes: [UInt8] = []
        var blocks: [IcyMetadata] = []
        bytes.withUnsafeBytes { raw in
            push(raw, audio: { audioBytes.append(contentsOf: $0) }, onMetadata: { blocks.append($0) })
        }
        return (audioBytes, blocks)
    }

    private mutating func finishBlock(_ onMetadata: (IcyMetadata) -> Void) {
        audioRemaining = metaInterval ?? .max
        guard !discarding else {
            discarding = false
            return
        }
        let parsed = IcyMetadata(parsing: metadata, maxTitleCharacters: maxTitleCharacters)
        metadata.removeAll(keepingCapacity: true)
        if !parsed.fields.isEmpty { onMetadata(parsed) }
    }
}

/// What an ICY server says about itself in its response headers.
public struct IcyHeaders: Sendable, Equatable {
    /// Audio bytes between metadata blocks; nil when absent or out of range (then: no titles).
    public var metaInterval: Int?
    public var name: String?
    public var genre: String?
    public var description: String?
    public var bitrate: Int?
    public var contentType: String?

    /// `header(name)` looks a header up case-insensitively (e.g. `HTTPResponseHead.value(for:)`).
    public init(header: (String) -> String?, limits: MediaLimits = MediaLimits()) {
        func clean(_ value: String?) -> String? {
            guard let value = value?.trimmed(), !value.isEmpty else { return nil }
            return String(value.prefix(200))
        }
        if let text = header("icy-metaint")?.trimmed(), let value = Int(text), (1...limits.maxMetaInterval).contains(value) {
            metaInterval = value
        }
        name = clean(header("icy-name"))
        genre = clean(header("icy-genre"))
        description = clean(header("icy-description"))
        bitrate = header("icy-br").flatMap { Int($0.split(separator: ",").first.map { String($0).trimmed() } ?? "") }
        contentType = clean(header("content-type"))
    }
}

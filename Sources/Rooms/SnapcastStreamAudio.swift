import AudioCore
import Codecs

/// The group's stream as this box receives it: the decoder the last CodecHeader made, and the decoded
/// audio waiting for its time (server clock).
struct SnapcastStreamAudio {
    let queueSeconds: Int
    private(set) var decoder: SnapcastChunkDecoder?
    var queue: TimedPCMQueue?
    /// When the last audio arrived, and the last that was not silence (local monotonic ns).
    private(set) var lastAudioAt: Int64?
    private(set) var lastSoundAt: Int64?

    init(queueSeconds: Int) {
        self.queueSeconds = queueSeconds
    }

    /// A new stream format: what was held belongs to the old one.
    mutating func start(codec: String, header: [UInt8]) throws(CodecError) {
        decoder = nil
        queue = nil
        decoder = try SnapcastChunkDecoder(codec: codec, header: header)
    }

    /// Decodes one chunk whose first sample is at server time `timestamp`. A chunk before any header
    /// (the server always sends one first) is dropped.
    mutating func add(_ payload: [UInt8], at timestamp: Int64, now: Int64, soundThreshold: Int16) throws(CodecError) {
        guard let decoder else { return }
        var offset: Int64 = 0
        // Taken, not copied: with a second reference each append would copy the whole buffer.
        var queue = self.queue.take()
        defer { self.queue = queue }
        var sounded = false
        try decoder.decode(payload) { block in
            if !sounded { sounded = block.samples.contains { $0 > soundThreshold || $0 < -soundThreshold } }
            if queue?.format != block.format {
                queue = TimedPCMQueue(format: block.format, capacityFrames: block.format.sampleRate * queueSeconds)
            }
            queue?.append(block.samples, at: timestamp + offset)
            offset += Int64(block.frameCount) * 1_000_000_000 / Int64(block.format.sampleRate)
        }
        lastAudioAt = now
        if sounded { lastSoundAt = now }
    }

    /// Forgets the stream (a new connection starts with a new header).
    mutating func stop() {
        decoder = nil
        queue = nil
        lastAudioAt = nil
        lastSoundAt = nil
    }

    /// Drops what is held but keeps the decoder (audio that is not to be played: local media, a mute).
    mutating func discardQueued() {
        queue?.removeAll()
    }
}

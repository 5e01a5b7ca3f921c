import Basics
import Media
import Synchronization

/// The assistant's voice and earcon level (`ctl voice-volume`), 0...1 as an amplitude factor, kept in
/// `state_dir/voice-volume` (one decimal number, mode 0600) next to the media state. A missing or
/// unreadable file means 1.0; an unwritable directory keeps the level in memory (the error is returned
/// once per write so the caller can log it).
public final class VoiceVolumeStore: Sendable {
    public static let fileName = "voice-volume"
    /// Longest file accepted (a number and a newline).
    static let maxFileBytes = 64

    private let files: MediaStateFiles
    private let level: Mutex<Double>

    /// Reads the saved level; `problem` receives one plain sentence when the file exists but is unusable.
    public init(stateDirectory: String, problem: (String) -> Void = { _ in }) {
        files = MediaStateFiles(directory: stateDirectory)
        var initial = 1.0
        do throws(MediaStateFiles.Failure) {
            if let bytes = try files.read(Self.fileName, limit: Self.maxFileBytes + 1) {
                if let parsed = Self.parse(bytes) {
                    initial = parsed
                } else {
                    problem("\(files.path(Self.fileName)) does not hold a level from 0.0 to 1.0; using 1.0")
                }
            }
        } catch {
            problem("cannot read the voice volume: \(error); using 1.0")
        }
        level = Mutex(initial)
    }

    public var current: Double { level.withLock { $0 } }

    /// Sets and saves the level (already validated to 0...1). Throws when it could not be saved; the new
    /// level applies anyway.
    public func set(_ value: Double) throws(MediaStateFiles.Failure) {
        level.withLock { $0 = value }
        try files.prepare()
        try files.replace(Self.fileName, with: Array("\(value)\n".utf8))
    }

    /// A decimal number from 0 to 1, optionally surrounded by whitespace; nil otherwise.
    static func parse(_ bytes: [UInt8]) -> Double? {
        guard bytes.count <= maxFileBytes else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmed()
        guard let value = Double(text), value.isFinite, (0.0...1.0).contains(value) else { return nil }
        return value
    }
}

import Basics
import Media
import Synchronization

/// One owner's setting kept across restarts in a one-line file of the state directory (mode 0600, next to
/// the media state): read once at start, replaced whole on each change. A missing file means the default;
/// unusable content means the default with one sentence; an unwritable directory keeps the value in memory
/// (the error is returned once per write so the caller can log it).
final class SavedSetting<Value: Sendable>: Sendable {
    /// Longest file accepted.
    static var maxFileBytes: Int { 64 }

    private let files: MediaStateFiles
    private let fileName: String
    private let format: @Sendable (Value) -> String
    private let value: Mutex<Value>

    /// `parse` gets the file's text, trimmed; `describe` says what the file should hold ("a level from 0.0
    /// to 1.0"), for the sentence about unusable content.
    init(
        stateDirectory: String, fileName: String, defaultValue: Value, describe: String,
        parse: (String) -> Value?, format: @escaping @Sendable (Value) -> String, problem: (String) -> Void
    ) {
        files = MediaStateFiles(directory: stateDirectory)
        self.fileName = fileName
        self.format = format
        var initial = defaultValue
        do throws(MediaStateFiles.Failure) {
            if let bytes = try files.read(fileName, limit: Self.maxFileBytes + 1) {
                if bytes.count <= Self.maxFileBytes, let parsed = parse(String(decoding: bytes, as: UTF8.self).trimmed()) {
                    initial = parsed
                } else {
                    problem("\(files.path(fileName)) does not hold \(describe); using \(format(defaultValue))")
                }
            }
        } catch {
            problem("cannot read \(files.path(fileName)): \(error); using \(format(defaultValue))")
        }
        value = Mutex(initial)
    }

    var current: Value { value.withLock { $0 } }

    /// Sets and saves the value. Throws when it could not be saved; the new value applies anyway.
    func set(_ newValue: Value) throws(MediaStateFiles.Failure) {
        value.withLock { $0 = newValue }
        try files.prepare()
        try files.replace(fileName, with: Array((format(newValue) + "\n").utf8))
    }
}

import FoundationEssentials

/// A podcast episode's remembered position (keyed by enclosure URL in `MediaPersistedState`).
struct PodcastPosition: Codable, Equatable, Sendable {
    /// Where it stopped (the rewind is applied when resuming).
    var seconds: Double
    /// Compressed bytes per second of audio, to turn seconds into a Range offset.
    var bytesPerSecond: Double?
    var durationSeconds: Double?
    /// Unix seconds; the oldest positions are dropped first.
    var updatedAt: Int64
}

/// `media-state.json`.
struct MediaPersistedState: Codable, Equatable, Sendable {
    var volume: Double?
    var positions: [String: PodcastPosition] = [:]
}

/// The player's memory: the state file (volume, podcast positions) and the play history
/// (`media-history.jsonl`, one JSON object per line, oldest first, trimmed to `historyLimit`).
/// When the directory cannot be used, everything stays in memory and `problem` says why (once).
struct MediaPlayerStore {
    static let stateFile = "media-state.json"
    static let historyFile = "media-history.jsonl"

    private(set) var files: MediaStateFiles?
    var state = MediaPersistedState()
    private(set) var history: [MediaHistoryEntry] = []
    let historyLimit: Int
    let positionLimit: Int
    private var linesOnDisk = 0
    /// Set by the first failure; the caller logs it once.
    private(set) var problem: String?

    init(directory: String, historyLimit: Int, positionLimit: Int) {
        self.historyLimit = max(1, historyLimit)
        self.positionLimit = max(1, positionLimit)
        let files = MediaStateFiles(directory: directory)
        do {
            try files.prepare()
            self.files = files
        } catch {
            problem = "media state directory unusable, keeping volume, positions and history in memory only: \(error)"
            return
        }
        load(files)
    }

    private mutating func load(_ files: MediaStateFiles) {
        do {
            if let bytes = try files.read(Self.stateFile), !bytes.isEmpty {
                state = try JSONDecoder().decode(MediaPersistedState.self, from: Data(bytes))
            }
        } catch {
            problem = "ignoring unreadable \(files.path(Self.stateFile)): \(error)"
        }
        do {
            if let bytes = try files.read(Self.historyFile) {
                let decoder = JSONDecoder()
                for line in bytes.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
                    linesOnDisk += 1
                    if let entry = try? decoder.decode(MediaHistoryEntry.self, from: Data(line)) { history.append(entry) }
                }
                if history.count > historyLimit { history.removeFirst(history.count - historyLimit) }
            }
        } catch {
            problem = "ignoring unreadable \(files.path(Self.historyFile)): \(error)"
        }
    }

    mutating func setPosition(_ position: PodcastPosition, for url: String) {
        state.positions[url] = position
        if state.positions.count > positionLimit {
            let oldest = state.positions.sorted { $0.value.updatedAt < $1.value.updatedAt }.prefix(state.positions.count - positionLimit)
            for (key, _) in oldest { state.positions[key] = nil }
        }
    }

    /// Writes the state file; false (and `problem` set, files dropped) on failure.
    @discardableResult
    mutating func saveState() -> Bool {
        guard let files else { return false }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(state)
            try files.replace(Self.stateFile, with: Array(data) + [UInt8(ascii: "\n")])
            return true
        } catch {
            fail("cannot save \(files.path(Self.stateFile)), keeping state in memory: \(error)")
            return false
        }
    }

    /// Appends to the history (and the file; the file is rewritten when it holds a quarter more than the limit).
    mutating func record(_ entry: MediaHistoryEntry) {
        history.append(entry)
        if history.count > historyLimit { history.removeFirst(history.count - historyLimit) }
        guard let files else { return }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            if linesOnDisk + 1 > historyLimit + historyLimit / 4 {
                var bytes: [UInt8] = []
                for kept in history { bytes += Array(try encoder.encode(kept)) + [UInt8(ascii: "\n")] }
                try files.replace(Self.historyFile, with: bytes)
                linesOnDisk = history.count
            } else {
                try files.append(Self.historyFile, Array(try encoder.encode(entry)) + [UInt8(ascii: "\n")])
                linesOnDisk += 1
            }
        } catch {
            fail("cannot write \(files.path(Self.historyFile)), keeping history in memory: \(error)")
        }
    }

    private mutating func fail(_ message: String) {
        problem = message
        files = nil
    }

    /// Returns the problem once.
    mutating func takeProblem() -> String? {
        defer { problem = nil }
        return problem
    }
}

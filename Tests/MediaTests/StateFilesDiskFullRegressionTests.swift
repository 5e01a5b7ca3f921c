import Glibc
import HTTP
import TestProcess
import TestSupport
import Testing

@testable import Media

/// Disk full for the player's state files, injected without root mounts: the state file's temporary
/// and the history file are symlinks to /dev/full, whose writes fail with ENOSPC like a full disk.
@Suite struct StateFilesDiskFullRegressionTests {
    @Test func aFullDiskKeepsStateInMemoryAndTheOldFileIntact() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var store = MediaPlayerStore(directory: dir.path, historyLimit: 10, positionLimit: 10)
        store.state.volume = 0.3
        let savedFirst = store.saveState()
        #expect(savedFirst)
        let saved = try #require(readFile(dir.path + "/media-state.json"))

        #expect(symlink("/dev/full", dir.path + "/media-state.json.tmp") == 0)
        #expect(symlink("/dev/full", dir.path + "/media-history.jsonl") == 0)
        store.state.volume = 0.8
        let savedOnFullDisk = store.saveState()
        #expect(!savedOnFullDisk)
        let taken = store.takeProblem()
        let problem = try #require(taken)
        #expect(problem.contains("media-state.json") && problem.contains("No space left on device"), "\(problem)")
        // The file on disk is the last complete one (temp + rename), never a torn write.
        #expect(readFile(dir.path + "/media-state.json") == saved)
        #expect(store.state.volume == 0.8)

        // Later writes stay in memory without retrying the full disk (one journal line, not one per write).
        store.record(MediaHistoryEntry(item: MediaItem(url: "https://e/a.mp3", kind: .podcast), startedAt: 1, playedSeconds: 2))
        #expect(store.history.count == 1)
        let noProblem = store.takeProblem()
        #expect(noProblem == nil)
    }

    @Test func theHistoryFileOnAFullDiskIsReportedAndPlayingGoesOn() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var store = MediaPlayerStore(directory: dir.path, historyLimit: 10, positionLimit: 10)
        #expect(symlink("/dev/full", dir.path + "/media-history.jsonl") == 0)
        store.record(MediaHistoryEntry(item: MediaItem(url: "https://e/a.mp3", kind: .music), startedAt: 1, playedSeconds: 2))
        let taken = store.takeProblem()
        let problem = try #require(taken)
        #expect(problem.contains("media-history.jsonl") && problem.contains("No space left on device"), "\(problem)")
        #expect(store.history.map(\.item.url) == ["https://e/a.mp3"])

        // The player on a full disk: the volume still changes and is reported.
        let client = try HTTPClient()
        defer { client.shutdown() }
        #expect(symlink("/dev/full", dir.path + "/media-state.json.tmp") == 0)
        let fixture = PlayerFixture(stateDir: dir.path, client: client, server: nil)
        #expect(await fixture.player.setVolume(0.4) == 0.4)
        #expect(await fixture.player.nowPlaying().volume == 0.4)
    }

    private func readFile(_ path: String) -> [UInt8]? { MediaFixtures.readFile(path) }
}

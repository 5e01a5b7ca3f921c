@testable import Appliance
import Glibc
import Testing

/// The voice volume's state file: one number, 0600, survives a new store; bad content falls back to 1.0
/// with one sentence.
@Suite struct VoiceVolumeStoreTests {
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/jarvis-voice-volume-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return try #require(made.map { String(cString: $0) })
    }

    @Test func aSetLevelIsSavedOwnerOnlyAndReadBack() throws {
        let dir = try Self.temporaryDirectory()
        let store = VoiceVolumeStore(stateDirectory: dir)
        #expect(store.current == 1, "no file: full level")
        try store.set(0.35)
        #expect(store.current == 0.35)
        var info = stat()
        #expect(stat(dir + "/voice-volume", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(VoiceVolumeStore(stateDirectory: dir).current == 0.35)
        unlink(dir + "/voice-volume")
        rmdir(dir)
    }

    @Test func unusableContentFallsBackToFullWithOneSentence() throws {
        #expect(VoiceVolumeStore.parse(Array(" 0.5\n".utf8)) == 0.5)
        for bad in ["", "2", "-0.1", "nan", "loud", String(repeating: "0", count: 100)] {
            #expect(VoiceVolumeStore.parse(Array(bad.utf8)) == nil, "\(bad)")
        }
        let dir = try Self.temporaryDirectory()
        let fd = open(dir + "/voice-volume", O_WRONLY | O_CREAT, 0o600)
        _ = write(fd, "7", 1)
        close(fd)
        var problems: [String] = []
        let store = VoiceVolumeStore(stateDirectory: dir) { problems.append($0) }
        #expect(store.current == 1)
        #expect(problems.count == 1)
        #expect(problems.first?.hasSuffix("does not hold a level from 0.0 to 1.0; using 1.0") == true)
        unlink(dir + "/voice-volume")
        rmdir(dir)
    }
}

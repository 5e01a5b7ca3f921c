@testable import Appliance
import Glibc
import TestProcess
import Testing

/// The voice volume's state file: one number, 0600, survives a new store; bad content falls back to 1.0
/// with one sentence.
@Suite struct VoiceVolumeStoreTests {
    @Test func aSetLevelIsSavedOwnerOnlyAndReadBack() throws {
        let temporary = TemporaryDirectory(prefix: "jarvis-voice-volume")
        let dir = temporary.path
        let store = VoiceVolumeStore(stateDirectory: dir)
        #expect(store.current == 1, "no file: full level")
        try store.set(0.35)
        #expect(store.current == 0.35)
        var info = stat()
        #expect(stat(dir + "/voice-volume", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(VoiceVolumeStore(stateDirectory: dir).current == 0.35)
    }

    @Test func unusableContentFallsBackToFullWithOneSentence() throws {
        #expect(VoiceVolumeStore.parse(Array(" 0.5\n".utf8)) == 0.5)
        for bad in ["", "2", "-0.1", "nan", "loud", String(repeating: "0", count: 100)] {
            #expect(VoiceVolumeStore.parse(Array(bad.utf8)) == nil, "\(bad)")
        }
        let temporary = TemporaryDirectory(prefix: "jarvis-voice-volume")
        let dir = temporary.path
        temporary.write("voice-volume", "7")
        var problems: [String] = []
        let store = VoiceVolumeStore(stateDirectory: dir) { problems.append($0) }
        #expect(store.current == 1)
        #expect(problems.count == 1)
        #expect(problems.first?.hasSuffix("does not hold a level from 0.0 to 1.0; using 1.0") == true)
    }
}

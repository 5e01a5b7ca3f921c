import Glibc
import TestProcess
import Testing

@testable import Conversation

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
        #expect(VoiceVolumeStore.parse("0.5") == 0.5)
        for bad in ["", "2", "-0.1", "nan", "loud"] {
            #expect(VoiceVolumeStore.parse(bad) == nil, "\(bad)")
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

    @Test func aFileTooLongIsUnusable() {
        let temporary = TemporaryDirectory(prefix: "jarvis-voice-volume")
        temporary.write("voice-volume", String(repeating: "0", count: 100))
        var problems: [String] = []
        #expect(VoiceVolumeStore(stateDirectory: temporary.path) { problems.append($0) }.current == 1)
        #expect(problems.count == 1)
    }
}

/// The microphone mute survives a restart: `on`/`off` in its file, off without one.
@Suite struct MicrophoneMuteStoreTests {
    @Test func aMuteIsSavedAndReadBackAndBadContentMeansOn() throws {
        let temporary = TemporaryDirectory(prefix: "jarvis-voice-mute")
        let store = MicrophoneMuteStore(stateDirectory: temporary.path)
        #expect(!store.muted, "no file: the microphone is on")
        try store.set(muted: true)
        #expect(MicrophoneMuteStore(stateDirectory: temporary.path).muted)
        try store.set(muted: false)
        #expect(!MicrophoneMuteStore(stateDirectory: temporary.path).muted)
        temporary.write("microphone", "maybe")
        var problems: [String] = []
        #expect(!MicrophoneMuteStore(stateDirectory: temporary.path) { problems.append($0) }.muted)
        #expect(problems == ["\(temporary.path)/microphone does not hold \"on\" or \"off\"; using on"])
    }
}

import TestProcess
import Testing

@testable import Configuration

#if canImport(Glibc)
    import Glibc
#endif

/// The doctor's judgement of what the service user may read, against real files and modes.
@Suite struct ServiceFileAccessTests {
    /// A user that owns nothing here (uid/gid 65534, "nobody"), unless a test chowns a file to it.
    let nobody = FileSystemCalls.UserIdentity(uid: 65534, groups: [65534])

    @Test func sandboxHiddenPathsAreRefused() {
        #expect(ServiceFileAccess.denial(of: "/home/pi/openai.key", for: nobody) == "the unit hides /home (ProtectHome=yes)")
        #expect(ServiceFileAccess.denial(of: "/root/key", for: nobody) == "the unit hides /root (ProtectHome=yes)")
        #expect(ServiceFileAccess.denial(of: "/tmp/key", for: nobody) == "the service has its own /tmp (PrivateTmp=yes)")
    }

    @Test func modeBitsDecide() throws {
        let directory = TemporaryDirectory()
        #expect(chmod(directory.path, 0o711) == 0)
        let ownerOnly = directory.write("key", "sk", mode: 0o600)
        let info = try #require(FileSystemCalls.status(ownerOnly))
        #expect(
            ServiceFileAccess.permissionDenial(of: ownerOnly, for: nobody)
                == "no read permission (\(info.summary))")
        let worldReadable = directory.write("open", "sk", mode: 0o604)
        #expect(ServiceFileAccess.permissionDenial(of: worldReadable, for: nobody) == nil)
        #expect(ServiceFileAccess.permissionDenial(of: directory.path + "/absent", for: nobody) == nil, "missing: reading tells")
        let root = FileSystemCalls.UserIdentity(uid: 0, groups: [0])
        #expect(ServiceFileAccess.permissionDenial(of: ownerOnly, for: root) == nil)

        #expect(chmod(directory.path, 0o700) == 0)
        let denial = try #require(ServiceFileAccess.permissionDenial(of: worldReadable, for: nobody))
        #expect(denial.hasPrefix("no search permission on \(directory.path) ("))
    }

    @Test(.enabled(if: geteuid() == 0, "chown needs root"))
    func ownerAndGroupClasses() throws {
        let directory = TemporaryDirectory()
        #expect(chmod(directory.path, 0o711) == 0)
        let owned = directory.write("key", "sk", mode: 0o600)
        #expect(chown(owned, 65534, 0) == 0)
        #expect(ServiceFileAccess.permissionDenial(of: owned, for: nobody) == nil)
        #expect(
            ServiceFileAccess.permissionDenial(of: owned, for: FileSystemCalls.UserIdentity(uid: 65533, groups: [0]))
                == "no read permission (owner \(FileSystemCalls.userName(65534) ?? "65534"), group \(FileSystemCalls.groupName(0) ?? "0"), mode 0600)"
        )
        let groupReadable = directory.write("group", "sk", mode: 0o640)
        #expect(chown(groupReadable, 0, 65534) == 0)
        #expect(ServiceFileAccess.permissionDenial(of: groupReadable, for: nobody) == nil, "a supplementary group counts")
    }

    @Test func userLookup() {
        #expect(ServiceFileAccess.user("no-such-user-jarvis-voice-test") == nil)
        #expect(ServiceFileAccess.user("") == nil)
        if geteuid() == 0 {
            #expect(ServiceFileAccess.user("root") == nil, "the doctor already runs as that user")
        }
    }
}

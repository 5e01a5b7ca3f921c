import TestProcess
import Testing

@testable import Configuration

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SecretLoaderTests {
    static let key = "sk-test-0123456789abcdef"

    private func realtime(_ file: String) -> RealtimeConfig {
        RealtimeConfig(apiKeyFile: file)
    }

    /// What the doctor does for the service user, here denying exactly `paths` (a root test process
    /// cannot be refused a read by the kernel).
    private func denying(_ paths: Set<String>) -> ServiceFileAccess {
        ServiceFileAccess { path in
            paths.contains(path)
                ? ServiceFileAccess.Denial(user: "jarvis-voice", reason: "no read permission (owner root, group root, mode 0600)") : nil
        }
    }

    @Test func defaultsAreTheCredentials() {
        #expect(RealtimeConfig().apiKeyFile == "")
        #expect(JarvisConfig().tokenFile == "")
    }

    @Test func readsKeyFileAndTrims() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("openai.key", "  \(Self.key)\n\n")
        directory.write("openai-api-key", "sk-cred\n", mode: 0o400)
        let loaded = try SecretLoader(environment: ["OPENAI_API_KEY": "sk-env", "CREDENTIALS_DIRECTORY": directory.path])
            .openAIKey(realtime(file))
        #expect(loaded.secret.unredacted == Self.key, "a configured file comes first")
        #expect(loaded.secret.source == .file(path: file))
        #expect(loaded.skipped == nil)
    }

    @Test func refusesGroupOrWorldReadableFile() {
        let directory = TemporaryDirectory()
        directory.write("openai-api-key", "sk-cred\n", mode: 0o400)
        for mode in [0o644, 0o640, 0o604, 0o620] as [UInt32] {
            let file = directory.write("openai.key", Self.key + "\n", mode: mode)
            do {
                // Even with a usable credential: the file is readable and leaks; the owner must fix it.
                _ = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).openAIKey(realtime(file))
                Issue.record("mode \(String(mode, radix: 8)) was accepted")
            } catch {
                #expect(error.isPermissionProblem)
                #expect(
                    error.description
                        == "secret file \(file) is accessible by group or others (mode 0\(String(mode, radix: 8))); run: chmod 600 \(file)")
                #expect(!error.description.contains(Self.key))
            }
        }
        let readOnly = directory.write("ro.key", Self.key, mode: 0o400)
        #expect((try? SecretLoader(environment: [:]).openAIKey(realtime(readOnly)))?.secret.unredacted == Self.key)
    }

    @Test func credentialComesBeforeTheEnvironment() throws {
        let directory = TemporaryDirectory()
        let absent = directory.path + "/absent.key"
        let fromEnv = try SecretLoader(environment: ["OPENAI_API_KEY": " sk-env \n"]).openAIKey(realtime(absent))
        #expect(fromEnv.secret.unredacted == "sk-env")
        #expect(fromEnv.secret.source == .environment(variable: "OPENAI_API_KEY"))

        directory.write("openai-api-key", "sk-cred\n", mode: 0o400)
        let loader = SecretLoader(environment: ["OPENAI_API_KEY": "sk-env", "CREDENTIALS_DIRECTORY": directory.path])
        for file in ["", absent] {
            let fromCredential = try loader.openAIKey(realtime(file))
            #expect(fromCredential.secret.unredacted == "sk-cred")
            #expect(fromCredential.secret.source == .credential(name: "openai-api-key"))
            #expect(fromCredential.skipped == nil, "a missing file is no problem")
        }
    }

    @Test func credentialSearchPathFirstMatchWins() throws {
        let first = TemporaryDirectory()
        let second = TemporaryDirectory()
        second.write("openai-api-key", "sk-second", mode: 0o600)
        second.write("jarvis-token", "tok-second", mode: 0o600)
        first.write("jarvis-token", "tok-first", mode: 0o600)
        let loader = SecretLoader(environment: [:], credentialDirectories: [first.path, second.path + "/"])
        #expect(try loader.openAIKey(realtime("")).secret.unredacted == "sk-second")
        #expect(try loader.jarvisToken(JarvisConfig())?.secret.unredacted == "tok-first")
        #expect(throws: SecretError.self, "the first directory has no key") {
            try SecretLoader(environment: [:], credentialDirectories: [first.path]).openAIKey(realtime(""))
        }
    }

    @Test func unreadableFileNextToACredentialIsSkipped() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("openai.key", Self.key)
        directory.write("openai-api-key", "sk-cred\n", mode: 0o400)
        let loader = SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path], serviceAccess: denying([file]))
        let loaded = try loader.openAIKey(realtime(file))
        #expect(loaded.secret.unredacted == "sk-cred")
        let skipped = try #require(loaded.skipped)
        #expect(skipped.isUnreadable)
        #expect(
            skipped.description
                == "the service user jarvis-voice cannot read secret file \(file): no read permission (owner root, group root, mode 0600); make it readable by that user only, or leave the setting empty and use the credential \"openai-api-key\""
        )

        // The environment variable saves it too (the service run by hand).
        let fromEnv = try SecretLoader(environment: ["OPENAI_API_KEY": "sk-env"], serviceAccess: denying([file])).openAIKey(realtime(file))
        #expect(fromEnv.secret.unredacted == "sk-env")
        #expect(fromEnv.skipped?.isUnreadable == true)
    }

    @Test func unreadableFileWithoutAnotherSourceIsTheError() {
        let directory = TemporaryDirectory()
        let file = directory.write("openai.key", Self.key)
        do {
            _ = try SecretLoader(environment: [:], serviceAccess: denying([file])).openAIKey(realtime(file))
            Issue.record("an unreadable key file with no fallback was accepted")
        } catch {
            #expect(error.isUnreadable)
            #expect(error.description.hasPrefix("the service user jarvis-voice cannot read secret file \(file)"))
        }
    }

    @Test func fifoIsSkippedForACredentialAndRefusedWithoutOne() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/openai.key"
        #expect(mkfifo(path, 0o600) == 0)
        do {
            _ = try SecretLoader(environment: [:]).openAIKey(realtime(path))
            Issue.record("a FIFO was accepted")
        } catch {
            #expect(error.isUnreadable)
            #expect(error.description == "cannot read secret file \(path): not a regular file")
        }
        directory.write("openai-api-key", "sk-cred", mode: 0o400)
        let loaded = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).openAIKey(realtime(path))
        #expect(loaded.secret.unredacted == "sk-cred")
        #expect(loaded.skipped?.description == "cannot read secret file \(path): not a regular file")
    }

    @Test func missingEverywhere() {
        let directory = TemporaryDirectory()
        let absent = directory.path + "/absent.key"
        do {
            _ = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).openAIKey(realtime(absent))
            Issue.record("no key should be found")
        } catch {
            #expect(error.isNotFound)
            #expect(
                error.description
                    == "no OpenAI API key: put it in \(absent) (not found), the systemd credential \"openai-api-key\" (/etc/credstore/openai-api-key) or $OPENAI_API_KEY"
            )
        }
    }

    @Test func emptyAndMultiLineFilesAreRejectedWithoutLeaking() {
        let directory = TemporaryDirectory()
        let empty = directory.write("empty.key", " \n")
        #expect(throws: SecretError.self) { try SecretLoader(environment: [:]).openAIKey(realtime(empty)) }
        let twoLines = directory.write("two.key", "\(Self.key)\nsecond-line-secret\n")
        do {
            _ = try SecretLoader(environment: [:]).openAIKey(realtime(twoLines))
            Issue.record("a two-line key was accepted")
        } catch {
            #expect(error.description == "secret from file \(twoLines) contains whitespace or several lines; it must be a single token")
            #expect(!error.description.contains(Self.key) && !error.description.contains("second-line-secret"))
        }
    }

    @Test func jarvisTokenIsOptional() throws {
        let directory = TemporaryDirectory()
        let absent = JarvisConfig(tokenFile: directory.path + "/absent.token")
        #expect(try SecretLoader(environment: [:]).jarvisToken(absent) == nil)
        #expect(
            try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).jarvisToken(JarvisConfig()) == nil,
            "no token file and no credential: no token")

        directory.write("jarvis-token", "tok-cred\n", mode: 0o400)
        let credential = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).jarvisToken(absent)
        #expect(credential?.secret.unredacted == "tok-cred")

        let file = directory.write("jarvis.token", "tok-file", mode: 0o600)
        let fromFile = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).jarvisToken(JarvisConfig(tokenFile: file))
        #expect(fromFile?.secret.unredacted == "tok-file")

        let open = directory.write("open.token", "tok-open", mode: 0o644)
        #expect(throws: SecretError.self) { try SecretLoader(environment: [:]).jarvisToken(JarvisConfig(tokenFile: open)) }
    }

    @Test func unreadableTokenFileFallsBackToTheCredentialOnly() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("jarvis.token", "tok-file")
        do {
            _ = try SecretLoader(environment: [:], serviceAccess: denying([file])).jarvisToken(JarvisConfig(tokenFile: file))
            Issue.record("an unreadable token file without a credential was ignored")
        } catch {
            #expect(error.isUnreadable, "the owner asked for a token: running without one would fail every request")
        }
        directory.write("jarvis-token", "tok-cred", mode: 0o400)
        let loaded = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path], serviceAccess: denying([file]))
            .jarvisToken(JarvisConfig(tokenFile: file))
        #expect(loaded?.secret.unredacted == "tok-cred")
        #expect(loaded?.skipped?.isUnreadable == true)
    }

    @Test func secretIsRedactedEverywhere() {
        let secret = Secret(Self.key, source: .file(path: "/x"))
        var dumped = ""
        dump(secret, to: &dumped)
        let renderings = ["\(secret)", String(describing: secret), String(reflecting: secret), dumped, "\([secret])"]
        for text in renderings {
            #expect(!text.contains(Self.key))
            #expect(text.contains("redacted") || text.contains("file /x"))
        }
        #expect(secret.description == "<redacted secret from file /x>")
    }
}

extension RealtimeConfig {
    fileprivate init(apiKeyFile: String) {
        self.init()
        self.apiKeyFile = apiKeyFile
    }
}

extension JarvisConfig {
    fileprivate init(tokenFile: String) {
        self.init()
        self.tokenFile = tokenFile
    }
}

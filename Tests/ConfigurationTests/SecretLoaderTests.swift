#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Configuration

@Suite struct SecretLoaderTests {
    static let key = "sk-test-0123456789abcdef"

    private func realtime(_ file: String) -> RealtimeConfig {
        RealtimeConfig(apiKeyFile: file)
    }

    @Test func readsKeyFileAndTrims() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("openai.key", "  \(Self.key)\n\n")
        let secret = try SecretLoader(environment: ["OPENAI_API_KEY": "sk-env"]).openAIKey(realtime(file))
        #expect(secret.unredacted == Self.key)
        #expect(secret.source == "file \(file)")
    }

    @Test func refusesGroupOrWorldReadableFile() {
        let directory = TemporaryDirectory()
        for mode in [0o644, 0o640, 0o604, 0o620] as [UInt32] {
            let file = directory.write("openai.key", Self.key + "\n", mode: mode)
            do {
                _ = try SecretLoader(environment: [:]).openAIKey(realtime(file))
                Issue.record("mode \(String(mode, radix: 8)) was accepted")
            } catch {
                #expect(error.isPermissionProblem)
                #expect(error.description == "secret file \(file) is accessible by group or others (mode 0\(String(mode, radix: 8))); run: chmod 600 \(file)")
                #expect(!error.description.contains(Self.key))
            }
        }
        let readOnly = directory.write("ro.key", Self.key, mode: 0o400)
        #expect((try? SecretLoader(environment: [:]).openAIKey(realtime(readOnly)))?.unredacted == Self.key)
    }

    @Test func fallsBackToEnvironmentThenCredential() throws {
        let directory = TemporaryDirectory()
        let absent = directory.path + "/absent.key"
        let fromEnv = try SecretLoader(environment: ["OPENAI_API_KEY": " sk-env \n"]).openAIKey(realtime(absent))
        #expect(fromEnv.unredacted == "sk-env")
        #expect(fromEnv.source == "environment variable OPENAI_API_KEY")

        directory.write("openai-api-key", "sk-cred\n", mode: 0o400)
        let loader = SecretLoader(environment: ["OPENAI_API_KEY": "", "CREDENTIALS_DIRECTORY": directory.path])
        let fromCredential = try loader.openAIKey(realtime(""))
        #expect(fromCredential.unredacted == "sk-cred")
        #expect(fromCredential.source == "systemd credential openai-api-key")
    }

    @Test func missingEverywhere() {
        let directory = TemporaryDirectory()
        let absent = directory.path + "/absent.key"
        do {
            _ = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).openAIKey(realtime(absent))
            Issue.record("no key should be found")
        } catch {
            #expect(error.isNotFound)
            #expect(error.description == "no OpenAI API key: put it in \(absent) (not found), $OPENAI_API_KEY, or the systemd credential \"openai-api-key\"")
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

    @Test func fifoIsRefusedWithoutBlocking() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/openai.key"
        #expect(mkfifo(path, 0o600) == 0)
        do {
            _ = try SecretLoader(environment: [:]).openAIKey(realtime(path))
            Issue.record("a FIFO was accepted")
        } catch {
            #expect(error.description == "cannot read secret file \(path): not a regular file")
        }
    }

    @Test func jarvisTokenIsOptional() throws {
        let directory = TemporaryDirectory()
        let absent = JarvisConfig(tokenFile: directory.path + "/absent.token")
        #expect(try SecretLoader(environment: [:]).jarvisToken(absent) == nil)

        directory.write("jarvis-token", "tok-cred\n", mode: 0o400)
        let credential = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).jarvisToken(absent)
        #expect(credential?.unredacted == "tok-cred")

        let file = directory.write("jarvis.token", "tok-file", mode: 0o600)
        let fromFile = try SecretLoader(environment: ["CREDENTIALS_DIRECTORY": directory.path]).jarvisToken(JarvisConfig(tokenFile: file))
        #expect(fromFile?.unredacted == "tok-file")

        let open = directory.write("open.token", "tok-open", mode: 0o644)
        #expect(throws: SecretError.self) { try SecretLoader(environment: [:]).jarvisToken(JarvisConfig(tokenFile: open)) }
    }

    @Test func secretIsRedactedEverywhere() {
        let secret = Secret(Self.key, source: "file /x")
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

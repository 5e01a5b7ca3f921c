import TestProcess
import Testing

@testable import Configuration

/// Broken files on disk -> the exact `PATH:LINE: message` lines `check-config` prints.
@Suite struct CheckConfigFileTests {
    @Test(
        arguments: [
            (
                "unknown-key.toml", "[audio]\ncapture_device = \"hw:0\"\nfoo = 1\n",
                ["unknown-key.toml:3: unknown key \"foo\" in [audio]"]
            ),
            (
                "syntax.toml", "# comment\n[realtime]\nmodel = \"gpt-realtime\n",
                ["syntax.toml:3: syntax error: unterminated string (missing closing \")"]
            ),
            (
                "types.toml", "[button]\nenabled = \"no\"\nline = -1\n[control]\nsocket = 5\n",
                [
                    "types.toml:2: [button] enabled must be true or false, got a string",
                    "types.toml:3: [button] line must be between 0 and 1023, got -1",
                    "types.toml:5: [control] socket must be a string, got an integer"
                ]
            ),
            (
                "insecure-url.toml", "\n[realtime]\nurl = \"ws://api.openai.com/v1/realtime\"\n",
                ["insecure-url.toml:3: [realtime] url may use ws:// only for loopback hosts (use wss://), got \"ws://api.openai.com/v1/realtime\""]
            ),
            (
                "duplicate.toml", "[jarvis]\nurl = \"http://a/\"\nurl = \"http://b/\"\n",
                ["duplicate.toml:3: syntax error: duplicate key jarvis.url (first on line 2)"]
            ),
            ("section.toml", "[audio]\n[Audio]\n", ["section.toml:2: unknown section [Audio]; did you mean [audio]?"])
        ] as [(String, String, [String])])
    func brokenFiles(name: String, contents: String, expected: [String]) {
        let directory = TemporaryDirectory()
        let path = directory.write(name, contents)
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: path, for: .audioOnly) }
        do {
            _ = try ConfigLoader.load(path: path, for: .audioOnly)
        } catch {
            #expect(error.lines == expected.map { directory.path + "/" + $0 })
        }
    }

    /// A file-level problem has no line of its own: no made-up `:1:`.
    @Test func aMissingFileHasNoLineNumber() {
        let directory = TemporaryDirectory()
        let path = directory.path + "/absent.toml"
        do {
            _ = try ConfigLoader.load(path: path)
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect(error.lines == ["\(path): cannot read file: No such file or directory"])
        }
    }

    @Test func directoryIsNotAConfigFile() {
        let directory = TemporaryDirectory()
        do {
            _ = try ConfigLoader.load(path: directory.path)
            Issue.record("loading a directory succeeded")
        } catch {
            #expect(error.lines == ["\(directory.path): cannot read file: Is a directory"])
        }
    }

    @Test func validFileLoads() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("ok.toml", "[audio]\nplayback_device = \"plughw:0\"\n[jarvis]\nurl = \"http://jarvis.lan/ui\"\n")
        let config = try ConfigLoader.load(path: path)
        #expect(config.audio.playbackDevice == "plughw:0")
    }
}

import TestProcess
import Testing

@testable import Configuration

/// Configuration text that used to crash or slow the parser: deep nesting overflowed the stack
/// (SIGSEGV at ~40,000 levels), invalid UTF-8 was silently replaced, many keys were quadratic.
@Suite struct TOMLHostileInputTests {
    private func syntaxError(_ bytes: [UInt8]) -> TOMLSyntaxError? {
        do {
            _ = try TOMLParser.parse(bytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        "a = " + String(repeating: "[", count: 40_000),
        "a = " + String(repeating: "{b=", count: 40_000),
        "a = " + String(repeating: "[{b=", count: 20_000),
        "a = " + String(repeating: "[", count: 40_000) + String(repeating: "]", count: 40_000)
    ])
    func deepNestingIsASyntaxErrorNotACrash(_ text: String) {
        let error = syntaxError(Array(text.utf8))
        #expect(error?.line == 1)
        #expect(error?.message.contains("nested more than \(TOMLParser.maxNesting)") == true)
    }

    @Test func nestingUpToTheLimitIsFine() throws {
        let depth = TOMLParser.maxNesting
        let table = try TOMLParser.parse("a = " + String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth))
        var value = table["a"]?.value
        var levels = 0
        while case .array(let inner)? = value {
            levels += 1
            value = inner.first
        }
        #expect(levels == depth)
        #expect(value == .integer(1))
    }

    @Test(arguments: [
        String(repeating: "a.", count: 40_000) + "b = 1",
        "[" + String(repeating: "a.", count: 40_000) + "b]"
    ])
    func endlesslyDottedKeysAreRefused(_ text: String) {
        #expect(syntaxError(Array(text.utf8))?.message.contains("dotted parts") == true)
    }

    @Test(arguments: [
        ([0xFF] as [UInt8], 3),
        ([0xC3] as [UInt8], 3),  // truncated sequence
        ([0xC0, 0xAF] as [UInt8], 3),  // overlong "/"
        ([0xED, 0xA0, 0x80] as [UInt8], 3),  // UTF-16 surrogate
        ([0xF4, 0x90, 0x80, 0x80] as [UInt8], 3)  // above U+10FFFF
    ])
    func invalidUTF8IsRefusedWithItsLine(_ bad: [UInt8], _ line: Int) {
        let bytes = Array("a = 1\n# fine\nb = \"".utf8) + bad + Array("\"\nc = 2\n".utf8)
        let error = syntaxError(bytes)
        #expect(error?.line == line)
        #expect(error?.message.contains("not valid UTF-8") == true)
    }

    @Test func theLoaderReportsInvalidUTF8AsPathLineMessage() {
        let directory = TemporaryDirectory()
        let path = directory.write("config.toml", bytes: Array("[service]\n# caf".utf8) + [0xE9] + Array("\n".utf8))
        do {
            _ = try ConfigLoader.load(path: path)
            Issue.record("loaded a file that is not UTF-8")
        } catch {
            #expect(error.lines == ["\(path):2: syntax error: the file is not valid UTF-8 (TOML files must be UTF-8)"])
        }
        do {
            _ = try ConfigLoader.loadControl(path: path)
            Issue.record("loaded a file that is not UTF-8")
        } catch {
            #expect(error.problems.first?.line == 2)
        }
    }

    /// Every key used to copy the whole table (quadratic: 60,000 keys took ~100 s in a debug build).
    /// 8x the keys must not take more than 8 × 4 the time; best of two runs of each size.
    @Test func manyKeysParseInLinearTime() throws {
        func bestTime(keys: Int) throws -> Duration {
            let text = (0..<keys).map { "k\($0) = \($0)" }.joined(separator: "\n")
            var best = Duration.seconds(1_000)
            for _ in 0..<2 {
                var table = TOMLTable()
                best = min(best, try ContinuousClock().measure { table = try TOMLParser.parse(text) })
                #expect(table.entries.count == keys)
                #expect(table["k\(keys - 1)"]?.line == keys)
            }
            return best
        }
        let small = try bestTime(keys: 5_000)
        let large = try bestTime(keys: 40_000)
        #expect(large / small < 32, "8x the keys took \(large / small)x the time (\(small) vs \(large))")
    }
}

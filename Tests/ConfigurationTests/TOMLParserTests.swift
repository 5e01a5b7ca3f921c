import Testing

@testable import Configuration

@Suite struct TOMLParserTests {
    private func parse(_ text: String) throws -> TOMLTable {
        try TOMLParser.parse(text)
    }

    private func syntaxError(_ text: String) -> TOMLSyntaxError? {
        do {
            _ = try TOMLParser.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func tablesKeysAndLines() throws {
        let doc = try parse(
            """
            # comment
            top = 1

            [audio]   # trailing comment
            capture_device = "hw:1,0"
            'literal key' = 'C:\\path'
            "quoted key" = true
            [dsp]
            frame_ms = 16
            """)
        #expect(doc["top"]?.value == .integer(1))
        #expect(doc["top"]?.line == 2)
        guard case .table(let audio)? = doc["audio"]?.value else {
            Issue.record("no [audio] table")
            return
        }
        #expect(audio.line == 4)
        #expect(audio["capture_device"]?.value == .string("hw:1,0"))
        #expect(audio["capture_device"]?.line == 5)
        #expect(audio["literal key"]?.value == .string("C:\\path"))
        #expect(audio["quoted key"]?.value == .boolean(true))
        #expect(doc.keys == ["top", "audio", "dsp"])
        guard case .table(let dsp)? = doc["dsp"]?.value else {
            Issue.record("no [dsp] table")
            return
        }
        #expect(dsp["frame_ms"]?.line == 9)
    }

    @Test func dottedKeysAndSubtables() throws {
        let doc = try parse(
            """
            audio.period_ms = 10
            [a.b]
            c = 1
            [a]
            d.e = "x"
            [a.d.f]
            g = 2
            """)
        guard case .table(let audio)? = doc["audio"]?.value, case .table(let a)? = doc["a"]?.value,
            case .table(let b)? = a["b"]?.value, case .table(let d)? = a["d"]?.value,
            case .table(let f)? = d["f"]?.value
        else {
            Issue.record("missing tables")
            return
        }
        #expect(audio["period_ms"]?.value == .integer(10))
        #expect(b["c"]?.value == .integer(1))
        #expect(a.line == 4)
        #expect(d["e"]?.value == .string("x"))
        #expect(f["g"]?.value == .integer(2))
    }

    @Test func strings() throws {
        let doc = try parse(
            #"""
            basic = "tab\there \"q\" \\ \u00e9 \U0001F600"
            multi = """
            line one
            line two\
                 continued"""
            literal_multi = '''
            raw \n text
            '''
            quotes = """two "" inside and at end"""""
            empty = ""
            """#)
        #expect(doc["basic"]?.value == .string("tab\there \"q\" \\ é 😀"))
        #expect(doc["multi"]?.value == .string("line one\nline twocontinued"))
        #expect(doc["multi"]?.line == 2)
        #expect(doc["literal_multi"]?.value == .string("raw \\n text\n"))
        #expect(doc["literal_multi"]?.line == 6)
        #expect(doc["quotes"]?.value == .string("two \"\" inside and at end\"\""))
        #expect(doc["quotes"]?.line == 9)
        #expect(doc["empty"]?.value == .string(""))
    }

    @Test func numbersAndBooleans() throws {
        let doc = try parse(
            """
            a = 48_000
            b = -15
            c = +7
            d = 0xDEAD_beef
            e = 0o755
            f = 0b1010
            g = 0.5
            h = -1.5e3
            i = 6E-2
            j = inf
            k = -inf
            l = nan
            m = true
            n = false
            o = 0
            p = 9223372036854775807
            """)
        #expect(doc["a"]?.value == .integer(48000))
        #expect(doc["b"]?.value == .integer(-15))
        #expect(doc["c"]?.value == .integer(7))
        #expect(doc["d"]?.value == .integer(0xDEAD_BEEF))
        #expect(doc["e"]?.value == .integer(0o755))
        #expect(doc["f"]?.value == .integer(10))
        #expect(doc["g"]?.value == .float(0.5))
        #expect(doc["h"]?.value == .float(-1500))
        #expect(doc["i"]?.value == .float(0.06))
        #expect(doc["j"]?.value == .float(.infinity))
        #expect(doc["k"]?.value == .float(-.infinity))
        if case .float(let nan)? = doc["l"]?.value { #expect(nan.isNaN) } else { Issue.record("nan") }
        #expect(doc["m"]?.value == .boolean(true))
        #expect(doc["n"]?.value == .boolean(false))
        #expect(doc["o"]?.value == .integer(0))
        #expect(doc["p"]?.value == .integer(.max))
    }

    @Test func arraysAndInlineTables() throws {
        let doc = try parse(
            """
            list = [
              1, 2,  # comment
              3,
            ]
            mixed = ["a", 'b', [true], { x = 1 }]
            point = { x = 1, y.z = "two" }
            empty = {}
            after = 1
            """)
        #expect(doc["list"]?.value == .array([.integer(1), .integer(2), .integer(3)]))
        #expect(doc["after"]?.line == 8)
        var inner = TOMLTable(line: 5)
        inner.append(.init(key: "x", value: .integer(1), line: 5))
        #expect(doc["mixed"]?.value == .array([.string("a"), .string("b"), .array([.boolean(true)]), .table(inner)]))
        guard case .table(let point)? = doc["point"]?.value, case .table(let y)? = point["y"]?.value else {
            Issue.record("inline table")
            return
        }
        #expect(point["x"]?.value == .integer(1))
        #expect(y["z"]?.value == .string("two"))
        #expect(doc["empty"]?.value == .table(TOMLTable(line: 7)))
    }

    @Test func whitespaceAndEdgeForms() throws {
        let doc = try parse(
            """
            [ audio ]  # spaces inside the brackets
            a . b = "x"   # comment after a value
            c = -0
            d = +0.0
            e = 1e5
            f = 1_000.5_0
            "" = "empty key"
            """)
        guard case .table(let audio)? = doc["audio"]?.value, case .table(let a)? = audio["a"]?.value else {
            Issue.record("no [audio].a")
            return
        }
        #expect(a["b"]?.value == .string("x"))
        #expect(audio["c"]?.value == .integer(0))
        #expect(audio["d"]?.value == .float(0))
        #expect(audio["e"]?.value == .float(100_000))
        #expect(audio["f"]?.value == .float(1000.5))
        #expect(audio[""]?.value == .string("empty key"))
    }

    @Test(arguments: [".5", "5.", "1.e3", "1e", "0x", "+0x10", "1_", "_1", "1.5_", "--1", "0b102"])
    func malformedNumbers(token: String) {
        #expect(syntaxError("x = \(token)\n")?.line == 1)
    }

    @Test func byteOrderMarkIsIgnored() throws {
        let doc = try parse("\u{FEFF}a = 1\n")
        #expect(doc["a"]?.value == .integer(1))
    }

    @Test func crlfLineEndings() throws {
        let doc = try parse("a = 1\r\n[t]\r\nb = \"x\"\r\n")
        guard case .table(let t)? = doc["t"]?.value else {
            Issue.record("no table")
            return
        }
        #expect(t["b"]?.line == 3)
    }

    @Test(
        arguments: [
            ("a = 1\nb = \n", 2, "expected a value after \"=\""),
            ("a = 1\na = 2\n", 2, "duplicate key a (first on line 1)"),
            ("[t]\nx = 1\n[t]\n", 3, "table [t] is defined twice (first on line 1)"),
            ("\n\nname = \"unterminated\n", 3, "unterminated string (missing closing \")"),
            ("x = \"\\q\"\n", 1, "invalid escape sequence \\q (write \\\\ for a backslash)"),
            ("a = 1 2\n", 1, "unexpected \"2\" after value (one key = value per line)"),
            ("a = hello\n", 1, "invalid value hello (strings need quotes: \"hello\")"),
            ("\na = 01\n", 2, "invalid number 01"),
            ("a = 1__0\n", 1, "invalid number 1__0"),
            ("a = 99999999999999999999\n", 1, "integer 99999999999999999999 is out of range"),
            ("a = 1979-05-27\n", 1, "dates and times are not supported in this configuration (use a string)"),
            ("[[t]]\n", 1, "arrays of tables ([[...]]) are not used in this configuration"),
            ("[t\n", 1, "expected \"]\" to close the table header"),
            ("key\n", 1, "expected \"=\" after key key"),
            ("p = { x = 1, }\n", 1, "trailing comma is not allowed in an inline table"),
            ("p = { x = 1\n}\n", 1, "newlines are not allowed inside an inline table"),
            ("p = { x = 1 }\np.y = 2\n", 2, "inline table p (line 1) cannot be extended"),
            ("a = [1, 2\n", 2, "unterminated array, expected \"]\""),
            ("a = 1\n\nb = \"\"\"\nnever closed\n", 3, "unterminated multi-line string (missing closing \"\"\")"),
            ("a = 1\na.b = 2\n", 2, "key a is already defined as a value (line 1), not a table"),
            ("[a]\nb.c = 1\n[a.b]\n", 3, "table [a.b] is defined twice (first on line 2)"),
            ("= 1\n", 1, "expected a key, found \"=\""),
            ("a = \"\\u12\"\n", 1, "\\u needs 4 hexadecimal digits")
        ] as [(String, Int, String)])
    func syntaxErrorsCarryLines(text: String, line: Int, message: String) {
        let error = syntaxError(text)
        #expect(error == TOMLSyntaxError(line: line, message: message))
    }
}

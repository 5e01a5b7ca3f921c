// Dumps what the product's parsers make of files, as JSON lines, for the comparisons in
// Benchmarks/parsers/ (feeds against Python feedparser, TOML against toml-test). Dev-only: not linked
// into jarvis-voice.
//
//   parse-dump feeds  < paths    one line per feed: {"file", "title", "episodes": [...], "latest"} or {"file", "error"}
//   parse-dump toml   < paths    one line per file: {"file", "value": <toml-test tagged JSON>} or {"file", "error"}
//   parse-dump playlist KIND BASE < paths   one line per file: {"file", "entries": [{"url", "title"}]} or {"file", "error"}
//   parse-dump feed-time < paths one line per feed: {"file", "seconds"}: PodcastFeed(parsing:) alone, best of 3
import Configuration
import FoundationEssentials
import Glibc
import Media

func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

func object(_ pairs: [(String, String)]) -> String {
    "{" + pairs.map { quoted($0.0) + ": " + $0.1 }.joined(separator: ", ") + "}"
}

func read(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(filePath: path)))
}

func feedLine(_ path: String, base: MediaURL?) -> String {
    do {
        let feed = try PodcastFeed(parsing: try read(path), base: base)
        let episodes = feed.episodes.map { episode in
            object([
                ("title", quoted(episode.title)),
                ("enclosure", quoted(episode.enclosure.absoluteString)),
                ("published", episode.published.map { String($0) } ?? "null"),
                ("pubDate", episode.pubDate.map(quoted) ?? "null"),
            ])
        }
        return object([
            ("file", quoted(path)), ("title", quoted(feed.title)),
            ("episodes", "[" + episodes.joined(separator: ", ") + "]"),
            ("latest", feed.latest.map { quoted($0.enclosure.absoluteString) } ?? "null"),
        ])
    } catch {
        return object([("file", quoted(path)), ("error", quoted("\(error)"))])
    }
}

func feedTimeLine(_ path: String) -> String {
    guard let bytes = try? read(path) else { return object([("file", quoted(path)), ("error", quoted("unreadable"))]) }
    let clock = ContinuousClock()
    let best = (0..<3).map { _ in clock.measure { _ = try? PodcastFeed(parsing: bytes) } }.min() ?? .zero
    let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
    return object([("file", quoted(path)), ("seconds", String(seconds))])
}

func tagged(_ value: TOMLValue) -> String {
    switch value {
    case .string(let text): object([("type", quoted("string")), ("value", quoted(text))])
    case .integer(let number): object([("type", quoted("integer")), ("value", quoted(String(number)))])
    case .float(let number): object([("type", quoted("float")), ("value", quoted(number.isNaN ? "nan" : String(number)))])
    case .boolean(let flag): object([("type", quoted("bool")), ("value", quoted(String(flag)))])
    case .array(let elements): "[" + elements.map(tagged).joined(separator: ", ") + "]"
    case .table(let table): tagged(table)
    }
}

func tagged(_ table: TOMLTable) -> String {
    object(table.entries.map { ($0.key, tagged($0.value)) })
}

func tomlLine(_ path: String) -> String {
    do {
        return object([("file", quoted(path)), ("value", tagged(try TOMLParser.parse(bytes: try read(path))))])
    } catch {
        return object([("file", quoted(path)), ("error", quoted("\(error)"))])
    }
}

func playlistLine(_ path: String, kind: Playlist.Kind, base: MediaURL?) -> String {
    do {
        let playlist = try Playlist(parsing: try read(path), kind: kind, base: base)
        let entries = playlist.entries.map { object([("url", quoted($0.url.absoluteString)), ("title", $0.title.map(quoted) ?? "null")]) }
        return object([("file", quoted(path)), ("entries", "[" + entries.joined(separator: ", ") + "]")])
    } catch {
        return object([("file", quoted(path)), ("error", quoted("\(error)"))])
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first else {
    print("usage: parse-dump feeds [BASE_URL] | feed-time | toml | playlist pls|m3u [BASE_URL]   (file paths on stdin)")
    exit(2)
}
var rest = Array(arguments.dropFirst())
let line: (String) -> String
switch command {
case "feeds":
    let base = rest.first.flatMap { try? MediaURL(parsing: $0) }
    line = { feedLine($0, base: base) }
case "toml":
    line = tomlLine
case "feed-time":
    line = feedTimeLine
case "playlist":
    guard let kind = rest.first.flatMap(Playlist.Kind.init(rawValue:)) else {
        print("parse-dump playlist pls|m3u [BASE_URL]")
        exit(2)
    }
    rest.removeFirst()
    let base = rest.first.flatMap { try? MediaURL(parsing: $0) }
    line = { playlistLine($0, kind: kind, base: base) }
default:
    print("unknown command \(command)")
    exit(2)
}
while let path = readLine(), !path.isEmpty {
    print(line(path))
}

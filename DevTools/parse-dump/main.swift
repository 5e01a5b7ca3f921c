// Dumps what the product's parsers make of files, as JSON lines, for the comparisons in
// Benchmarks/parsers/ (feeds against Python feedparser, TOML against toml-test). Dev-only: not linked
// into jarvis-voice.
//
//   parse-dump feeds  < paths    one line per feed: {"file", "title", "episodes": [...], "latest"} or {"file", "error"}
//   parse-dump toml   < paths    one line per file: {"file", "value": <toml-test tagged JSON>} or {"file", "error"}
//   parse-dump playlist KIND BASE < paths   one line per file: {"file", "entries": [{"url", "title"}]} or {"file", "error"}
//   parse-dump feed-time < paths one line per feed: {"file", "seconds"}: PodcastFeed(parsing:) alone, best of 3
import Basics
import Configuration
import FoundationEssentials
import Glibc
import Media

func read(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(filePath: path)))
}

func failure(_ path: String, _ error: String) -> JSONValue { ["file": .string(path), "error": .string(error)] }

func feedLine(_ path: String, base: MediaURL?) -> JSONValue {
    do {
        let feed = try PodcastFeed(parsing: try read(path), base: base)
        let episodes = feed.episodes.map { episode -> JSONValue in
            [
                "title": .string(episode.title), "enclosure": .string(episode.enclosure.absoluteString),
                "published": episode.published.map { .number(Double($0)) } ?? .null, "pubDate": episode.pubDate.map(JSONValue.string) ?? .null
            ]
        }
        return [
            "file": .string(path), "title": .string(feed.title), "episodes": .array(episodes),
            "latest": feed.latest.map { .string($0.enclosure.absoluteString) } ?? .null
        ]
    } catch {
        return failure(path, "\(error)")
    }
}

func feedTimeLine(_ path: String) -> JSONValue {
    guard let bytes = try? read(path) else { return failure(path, "unreadable") }
    let clock = ContinuousClock()
    let best = (0..<3).map { _ in clock.measure { _ = try? PodcastFeed(parsing: bytes) } }.min() ?? .zero
    return ["file": .string(path), "seconds": .number(best.inSeconds)]
}

/// toml-test's tagged JSON: every scalar as `{"type", "value"}` with the value as a string.
func tagged(_ value: TOMLValue) -> JSONValue {
    func scalar(_ type: String, _ value: String) -> JSONValue { ["type": .string(type), "value": .string(value)] }
    switch value {
    case .string(let text): return scalar("string", text)
    case .integer(let number): return scalar("integer", String(number))
    case .float(let number): return scalar("float", number.isNaN ? "nan" : String(number))
    case .boolean(let flag): return scalar("bool", String(flag))
    case .array(let elements): return .array(elements.map(tagged))
    case .table(let table): return tagged(table)
    }
}

func tagged(_ table: TOMLTable) -> JSONValue {
    .object(Dictionary(table.entries.map { ($0.key, tagged($0.value)) }, uniquingKeysWith: { _, last in last }))
}

func tomlLine(_ path: String) -> JSONValue {
    do {
        return ["file": .string(path), "value": tagged(try TOMLParser.parse(bytes: try read(path)))]
    } catch {
        return failure(path, "\(error)")
    }
}

func playlistLine(_ path: String, kind: Playlist.Kind, base: MediaURL?) -> JSONValue {
    do {
        let playlist = try Playlist(parsing: try read(path), kind: kind, base: base)
        let entries = playlist.entries.map { entry -> JSONValue in
            ["url": .string(entry.url.absoluteString), "title": entry.title.map(JSONValue.string) ?? .null]
        }
        return ["file": .string(path), "entries": .array(entries)]
    } catch {
        return failure(path, "\(error)")
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first else {
    print("usage: parse-dump feeds [BASE_URL] | feed-time | toml | playlist pls|m3u [BASE_URL]   (file paths on stdin)")
    exit(2)
}
var rest = Array(arguments.dropFirst())
let line: (String) -> JSONValue
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
    print(line(path).jsonText)
}

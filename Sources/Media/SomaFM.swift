import FoundationEssentials

/// A SomaFM station: its id (the URL slug), display title and the playlist to resolve for a stream.
public struct SomaFMStation: Sendable, Equatable {
    public var id: String
    public var title: String
    public var genre: String
    public var playlist: MediaURL
    /// "Artist - Title" from channels.json, when refreshed.
    public var lastPlaying: String?

    public init(id: String, title: String, genre: String, playlist: MediaURL, lastPlaying: String? = nil) {
        self.id = id
        self.title = title
        self.genre = genre
        self.playlist = playlist
        self.lastPlaying = lastPlaying
    }
}

/// SomaFM's station list: a built-in fallback (works offline and when the API changes) and a parser
/// for https://api.somafm.com/channels.json to refresh it.
public struct SomaFMCatalog: Sendable, Equatable {
    public static let channelsURL = "https://api.somafm.com/channels.json"
    public var stations: [SomaFMStation]

    public init(stations: [SomaFMStation]) {
        self.stations = stations
    }

    /// Well-known stations with their MP3 playlists (https://somafm.com/<id>.pls).
    public static let builtIn: SomaFMCatalog = {
        let known: [(String, String, String)] = [
            ("groovesalad", "Groove Salad", "ambient|electronica"),
            ("dronezone", "Drone Zone", "ambient|space"),
            ("deepspaceone", "Deep Space One", "ambient|space"),
            ("spacestation", "Space Station Soma", "electronica|space"),
            ("secretagent", "Secret Agent", "lounge|eclectic"),
            ("lush", "Lush", "electronica|pop"),
            ("indiepop", "Indie Pop Rocks!", "indie|pop"),
            ("u80s", "Underground 80s", "80s|alternative"),
            ("seventies", "Left Coast 70s", "70s|rock"),
            ("defcon", "DEF CON Radio", "electronica"),
            ("bootliquor", "Boot Liquor", "americana|country"),
            ("sonicuniverse", "Sonic Universe", "jazz"),
            ("beatblender", "Beat Blender", "electronica"),
            ("fluid", "Fluid", "electronica|hiphop"),
            ("poptron", "PopTron", "pop|electronica"),
            ("suburbsofgoa", "Suburbs of Goa", "world|electronica"),
            ("thetrip", "The Trip", "electronica"),
            ("illstreet", "Illinois Street Lounge", "lounge"),
            ("folkfwd", "Folk Forward", "folk|alternative"),
            ("cliqhop", "cliqhop idm", "electronica"),
            ("dubstep", "Dub Step Beyond", "electronica"),
            ("metal", "Metal Detector", "metal"),
            ("covers", "Covers", "eclectic"),
            ("missioncontrol", "Mission Control", "ambient|space"),
            ("bagel", "BAGeL Radio", "alternative|rock"),
            ("thistle", "ThistleRadio", "folk|celtic"),
            ("reggae", "Heavyweight Reggae", "reggae"),
            ("n5md", "n5MD Radio", "ambient|electronica"),
            ("vaporwaves", "Vaporwaves", "electronica"),
            ("sf1033", "SF 10-33", "ambient|news"),
            ("synphaera", "Synphaera Radio", "ambient|space"),
            ("gsclassic", "Groove Salad Classic", "ambient|electronica"),
            ("christmas", "Christmas Lounge", "holiday")
        ]
        return SomaFMCatalog(
            stations: known.map { id, title, genre in
                // Literal URLs: parsing cannot fail.
                SomaFMStation(id: id, title: title, genre: genre, playlist: try! MediaURL(parsing: "https://somafm.com/\(id).pls"))
            })
    }()

    /// Finds a station by id or title, forgiving case, spaces and punctuation ("groove salad",
    /// "Groove-Salad", "drone zone"); then by a unique prefix/substring match.
    public func station(named name: String) -> SomaFMStation? {
        let wanted = Self.normalized(name.lowercased().replacingSomaPrefix())
        guard !wanted.isEmpty else { return nil }
        if let exact = stations.first(where: { Self.normalized($0.id) == wanted || Self.normalized($0.title) == wanted }) {
            return exact
        }
        let partial = stations.filter { Self.normalized($0.title).contains(wanted) || Self.normalized($0.id).contains(wanted) }
        return partial.count == 1 ? partial[0] : partial.first { Self.normalized($0.title).hasPrefix(wanted) }
    }

    static func normalized(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }.map(Character.init))
    }

    /// Parses channels.json: `{"channels": [{"id", "title", "genre", "playlists": [{"url", "format",
    /// "quality"}], "lastPlaying"}]}`. Prefers an MP3 playlist of the highest quality; stations with no
    /// usable playlist are skipped. Unknown fields are ignored.
    public init(channelsJSON bytes: [UInt8]) throws(SomaFMCatalogError) {
        struct Document: Decodable { var channels: [Channel] }
        struct Channel: Decodable {
            var id: String
            var title: String?
            var genre: String?
            var playlists: [PlaylistRef]?
            var lastPlaying: String?
        }
        struct PlaylistRef: Decodable {
            var url: String
            var format: String?
            var quality: String?
        }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(bytes))
        } catch {
            throw SomaFMCatalogError(description: "SomaFM channels.json is not in the expected format: \(error)")
        }
        let qualityRank = ["highest": 0, "high": 1, "low": 2]
        stations = document.channels.compactMap { channel -> SomaFMStation? in
            let candidates = (channel.playlists ?? []).compactMap { ref -> (rank: Int, url: MediaURL)? in
                guard let url = try? MediaURL(parsing: ref.url) else { return nil }
                let format = ref.format?.lowercased() ?? ""
                let formatRank = format == "mp3" ? 0 : (format.contains("aac") ? 20 : 10)
                return (formatRank + (qualityRank[ref.quality?.lowercased() ?? ""] ?? 3), url)
            }
            guard let best = candidates.min(by: { $0.rank < $1.rank }) else { return nil }
            return SomaFMStation(
                id: channel.id, title: channel.title ?? channel.id, genre: channel.genre ?? "",
                playlist: best.url, lastPlaying: channel.lastPlaying)
        }
        guard !stations.isEmpty else { throw SomaFMCatalogError(description: "SomaFM channels.json lists no playable station") }
    }
}

public struct SomaFMCatalogError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
}

extension String {
    fileprivate func replacingSomaPrefix() -> String {
        for prefix in ["somafm ", "soma fm ", "soma "] where hasPrefix(prefix) { return String(dropFirst(prefix.count)) }
        return self
    }
}

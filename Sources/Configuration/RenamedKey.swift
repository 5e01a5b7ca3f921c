/// A key a release renamed or dropped. For one release the old name is still accepted, with a warning
/// naming the new one, so an upgrade never stops the service at boot; after that it is an unknown key.
public struct RenamedKey: Sendable, Equatable {
    public struct Name: Sendable, Hashable, CustomStringConvertible {
        public var section: String
        public var key: String

        public init(_ section: String, _ key: String) {
            self.section = section
            self.key = key
        }

        public var description: String { "[\(section)] \(key)" }
    }

    public var old: Name
    /// Where its value goes now; nil when the setting was dropped (its value is ignored).
    public var new: Name?
    /// The last release that accepts the old name.
    public var acceptedUntil: String

    public init(old: Name, new: Name?, acceptedUntil: String) {
        self.old = old
        self.new = new
        self.acceptedUntil = acceptedUntil
    }

    /// The renames this release accepts (none yet: every key is as 0.1 named it).
    public static let table: [RenamedKey] = []

    /// `root` with every old name moved to its new one (or dropped), and a warning for each.
    static func apply(_ renames: [RenamedKey], to root: TOMLTable) -> (TOMLTable, warnings: [ConfigProblem]) {
        guard !renames.isEmpty else { return (root, []) }
        let byOld = Dictionary(renames.map { ($0.old, $0) }, uniquingKeysWith: { first, _ in first })
        var sections: [(name: String, table: TOMLTable)] = []
        var moved: [(to: Name, entry: TOMLTable.Entry)] = []
        var warnings: [ConfigProblem] = []
        var result = TOMLTable(line: root.line)
        for entry in root.entries {
            guard case .table(let section) = entry.value else {
                result.append(entry)
                continue
            }
            var kept = TOMLTable(line: section.line)
            for item in section.entries {
                guard let rename = byOld[Name(entry.key, item.key)] else {
                    kept.append(item)
                    continue
                }
                let until = "the old name is accepted until release \(rename.acceptedUntil)"
                if let new = rename.new {
                    moved.append((new, TOMLTable.Entry(key: new.key, value: item.value, line: item.line)))
                    warnings.append(ConfigProblem(line: item.line, message: "\(rename.old) is now \(new): rename it (\(until))"))
                } else {
                    warnings.append(ConfigProblem(line: item.line, message: "\(rename.old) is no longer used: delete it (\(until))"))
                }
            }
            sections.append((entry.key, kept))
        }
        for (to, entry) in moved {
            if let index = sections.firstIndex(where: { $0.name == to.section }) {
                if sections[index].table[to.key] == nil { sections[index].table.append(entry) }
            } else {
                var table = TOMLTable(line: entry.line)
                table.append(entry)
                sections.append((to.section, table))
            }
        }
        for section in sections {
            let line = root[section.name]?.line ?? section.table.line
            result.append(TOMLTable.Entry(key: section.name, value: .table(section.table), line: line))
        }
        return (result, warnings)
    }
}

/// Inserts keys and table headers into a `TOMLTable` tree, enforcing TOML's redefinition rules.
enum TOMLTableEditor {
    private enum Walk {
        case header  // intermediate tables of a [a.b.c] header: implicit, may be defined later
        case dotted  // tables created by dotted keys: extendable only by dotted keys
    }

    /// `[path]`: creates or completes the table at `path`.
    static func defineHeader(
        _ path: [String], in root: inout TOMLTable, tracker: inout TOMLTableTracker, line: Int
    ) throws(TOMLSyntaxError) {
        try walk(root: &root, path: path.dropLast(), walked: [], walkKind: .header, tracker: &tracker, line: line) {
            (parent, parentPath, tracker) throws(TOMLSyntaxError) in
            let name = path[path.count - 1]
            let full = parentPath + [name]
            if let index = parent.index(of: name) {
                guard case .table(var table) = parent.entries[index].value else {
                    throw TOMLSyntaxError(
                        line: line, message: "key \(display(full)) is already defined as a value (line \(parent.entries[index].line))")
                }
                if tracker.headers.contains(full) || tracker.dotted.contains(full) || tracker.frozen.contains(full) {
                    throw TOMLSyntaxError(line: line, message: "table [\(display(full))] is defined twice (first on line \(table.line))")
                }
                table.line = line
                parent.replaceValue(at: index, with: .table(table))
            } else {
                parent.append(.init(key: name, value: .table(TOMLTable(line: line)), line: line))
            }
            tracker.headers.insert(full)
        }
    }

    /// `key = value` (key possibly dotted) inside the table at `tablePath`.
    static func insert(
        _ value: TOMLValue, at tablePath: [String], key: [String],
        in root: inout TOMLTable, tracker: inout TOMLTableTracker, line: Int
    ) throws(TOMLSyntaxError) {
        // The current [table] itself exists already; only the key's own dotted prefix is "dotted".
        try walk(root: &root, path: tablePath[...], walked: [], walkKind: .header, tracker: &tracker, line: line) {
            (table, walked, tracker) throws(TOMLSyntaxError) in
            try walk(root: &table, path: key.dropLast(), walked: walked, walkKind: .dotted, tracker: &tracker, line: line) {
                (parent, parentPath, tracker) throws(TOMLSyntaxError) in
                let name = key[key.count - 1]
                let full = parentPath + [name]
                if let existing = parent[name] {
                    throw TOMLSyntaxError(line: line, message: "duplicate key \(display(full)) (first on line \(existing.line))")
                }
                parent.append(.init(key: name, value: value, line: line))
                if case .table = value { tracker.frozen.insert(full) }
            }
        }
    }

    private static func walk(
        root: inout TOMLTable, path: ArraySlice<String>, walked: [String], walkKind: Walk,
        tracker: inout TOMLTableTracker, line: Int,
        body: (inout TOMLTable, [String], inout TOMLTableTracker) throws(TOMLSyntaxError) -> Void
    ) throws(TOMLSyntaxError) {
        guard let name = path.first else {
            try body(&root, walked, &tracker)
            return
        }
        let full = walked + [name]
        if let index = root.index(of: name) {
            let entry = root.entries[index]
            guard case .table(var table) = entry.value else {
                throw TOMLSyntaxError(line: line, message: "key \(display(full)) is already defined as a value (line \(entry.line)), not a table")
            }
            if tracker.frozen.contains(full) {
                throw TOMLSyntaxError(line: line, message: "inline table \(display(full)) (line \(entry.line)) cannot be extended")
            }
            if walkKind == .dotted && !tracker.dotted.contains(full) {
                throw TOMLSyntaxError(line: line, message: "table \(display(full)) (line \(table.line)) cannot be extended with dotted keys here")
            }
            root.replaceValue(at: index, with: .boolean(false))  // avoid a copy of the subtree
            do {
                try walk(root: &table, path: path.dropFirst(), walked: full, walkKind: walkKind, tracker: &tracker, line: line, body: body)
            } catch {
                root.replaceValue(at: index, with: .table(table))
                throw error
            }
            root.replaceValue(at: index, with: .table(table))
        } else {
            var table = TOMLTable(line: line)
            if walkKind == .dotted { tracker.dotted.insert(full) }
            try walk(root: &table, path: path.dropFirst(), walked: full, walkKind: walkKind, tracker: &tracker, line: line, body: body)
            root.append(.init(key: name, value: .table(table), line: line))
        }
    }

    /// A key path as it would be written in TOML (`a."b c".d`).
    static func display(_ path: [String]) -> String {
        path.map { part in
            let bare = !part.isEmpty && part.utf8.allSatisfy(TOMLScanner.isBareKeyByte)
            return bare ? part : "\"" + part + "\""
        }.joined(separator: ".")
    }
}

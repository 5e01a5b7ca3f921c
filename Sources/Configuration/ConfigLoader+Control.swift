extension ConfigLoader {
    /// Only `[control]` of the file at `path`, for `jarvis-voice ctl`: problems elsewhere in the file
    /// do not stop a client from talking to a running service. Syntax errors and `[control]`
    /// problems are reported like `load(path:)` does.
    public static func loadControl(path: String) throws(ConfigError) -> ControlConfig {
        let bytes: [UInt8]
        do {
            bytes = try FileSystemCalls.readFile(path, maxBytes: maxFileBytes).bytes
        } catch {
            throw ConfigError(path: path, problems: [ConfigProblem(line: nil, message: "cannot read file: \(error.reason)")])
        }
        let table: TOMLTable
        do {
            table = try TOMLParser.parse(bytes: bytes)
        } catch {
            throw ConfigError(path: path, problems: [ConfigProblem(line: error.line, message: "syntax error: \(error.message)")])
        }
        var section = TOMLTable(line: 0)
        if let entry = table["control"] {
            guard case .table(let control) = entry.value else {
                throw ConfigError(path: path, problems: [ConfigProblem(line: entry.line, message: "control must be a [section]")])
            }
            section = control
        }
        var reader = ConfigSectionReader(name: "control", table: section)
        let config = ControlConfig(reader: &reader)
        reader.reportUnknownKeys()
        guard reader.problems.isEmpty else { throw ConfigError(path: path, problems: reader.problems) }
        return config
    }
}

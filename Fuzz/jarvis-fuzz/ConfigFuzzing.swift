import Configuration

/// The owner's TOML config: the TOML parser alone, then the full loader (sections, keys, values).
enum ConfigFuzzing {
    static func toml(_ bytes: [UInt8]) {
        keep(try? TOMLParser.parse(bytes: bytes))
        keep(ConfigLoader.decode(bytes: bytes).problems.count)
    }
}

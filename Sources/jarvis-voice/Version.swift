/// The one place the version lives: `jarvis-voice --version` prints it, and `scripts/package-deb`
/// reads it from the built binary for the package's version and file name.
enum Version {
    static let current = "0.1.0"
}

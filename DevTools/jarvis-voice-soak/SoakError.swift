/// A failure of the run's machinery (not a finding about the service), in plain words.
struct SoakError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

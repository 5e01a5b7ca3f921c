/// A demo step that failed, with what to do about it.
struct DemoError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

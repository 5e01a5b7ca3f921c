/// A speexdsp call failed. `function` is the C function's name, so a log line says exactly what broke.
public struct SpeexDSPError: Error, CustomStringConvertible, Equatable {
    public var function: String
    public var message: String

    public init(function: String, message: String) {
        self.function = function
        self.message = message
    }

    public var description: String { "speexdsp \(function) failed: \(message)" }
}

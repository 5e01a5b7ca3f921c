@testable import EchoControl

extension ResidualEchoSuppressor {
    /// One frame from arrays: `residual` (the canceller's output) becomes the suppressor's, one frame late.
    func process(_ residual: inout [Int16], reference: [Int16], mic: [Int16]) {
        residual.withUnsafeMutableBufferPointer { out in
            reference.withUnsafeBufferPointer { r in mic.withUnsafeBufferPointer { process(out, reference: r, mic: $0) } }
        }
    }
}

extension ResidualEchoSuppressor.Rules {
    /// These rules with `rule` on or off.
    func switching(_ rule: Self, on: Bool) -> Self { on ? union(rule) : subtracting(rule) }
}

import SpeexDSP

public enum CaptureChainError: Error, CustomStringConvertible {
    case invalidConfiguration([String])
    case speex(SpeexDSPError)

    public var description: String {
        switch self {
        case .invalidConfiguration(let problems): "invalid [dsp] configuration: " + problems.joined(separator: "; ")
        case .speex(let error): "capture chain: \(error)"
        }
    }
}

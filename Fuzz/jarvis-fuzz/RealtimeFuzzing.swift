import FoundationEssentials
import Realtime

/// One WebSocket text frame from the Realtime API.
enum RealtimeFuzzing {
    static func serverEvent(_ bytes: [UInt8]) {
        var decoder = ServerEventDecoder()
        keep(decoder.decode(Data(bytes)))
    }
}

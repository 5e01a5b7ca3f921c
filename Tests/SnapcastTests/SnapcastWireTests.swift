import Basics
import Snapcast
import Testing

@Suite struct SnapcastWireTests {
    @Test func theHeaderIs26LittleEndianBytesAndRoundTrips() throws {
        let header = SnapcastHeader(
            typeCode: 4, id: 0x0102, refersTo: 0x0304, sentNanoseconds: 63_788_123_456_000, receivedNanoseconds: -1_500_000, size: 0x0A0B_0C0D)
        var bytes: [UInt8] = []
        header.write(to: &bytes)
        #expect(bytes.count == SnapcastHeader.byteCount)
        #expect(Array(bytes[0..<6]) == [4, 0, 2, 1, 4, 3])
        #expect(Array(bytes[6..<14]) == SnapcastServerBytes.i32(63_788) + SnapcastServerBytes.i32(123_456))
        #expect(Array(bytes[14..<22]) == SnapcastServerBytes.i32(-1) + SnapcastServerBytes.i32(998_500), "usec is kept non-negative")
        #expect(Array(bytes[22..<26]) == [0x0D, 0x0C, 0x0B, 0x0A])
        #expect(SnapcastHeader(parsing: bytes[...]) == header)
        #expect(SnapcastHeader(parsing: bytes.dropLast()) == nil)
        #expect(header.type == .time)
    }

    @Test func timesBeyondInt32SecondsSaturate() {
        var bytes: [UInt8] = []
        SnapcastHeader(type: .time, sentNanoseconds: .max).write(to: &bytes)
        #expect(SnapcastHeader(parsing: bytes[...])?.sentNanoseconds == Int64(Int32.max) * 1_000_000_000)
    }

    @Test func helloCarriesExactlySnapclientsKeys() throws {
        let hello = SnapcastHello(id: "kitchen", hostName: "box", mac: "02:00:00:00:00:01", arch: "aarch64")
        let bytes = SnapcastMessageEncoder.hello(hello, id: 7, now: 5_000_000_123)
        let header = try #require(SnapcastServerBytes.header(of: bytes))
        #expect(header.type == .hello && header.id == 7 && header.refersTo == 0)
        #expect(header.sentNanoseconds == 5_000_000_000, "sent carries microseconds")
        #expect(Int(header.size) == bytes.count - SnapcastHeader.byteCount)
        let json = try #require(JSONValue.parse(SnapcastServerBytes.jsonText(of: bytes)))
        guard case .object(let object) = json else {
            Issue.record("not an object")
            return
        }
        #expect(
            Set(object.keys) == ["MAC", "HostName", "Version", "ClientName", "OS", "Arch", "Instance", "ID", "SnapStreamProtocolVersion"])
        #expect(json["SnapStreamProtocolVersion"] == 2)
        #expect(json["ID"] == "kitchen" && json["Instance"] == 1 && json["ClientName"] == "jarvis-voice" && json["Arch"] == "aarch64")
    }

    @Test func aTimeRequestIsOneZeroTimeval() throws {
        let bytes = SnapcastMessageEncoder.timeRequest(id: 9_999, now: 2_000_001_000)
        let header = try #require(SnapcastServerBytes.header(of: bytes))
        #expect(header.type == .time && header.id == 9_999 && header.size == 8 && header.sentNanoseconds == 2_000_001_000)
        #expect(Array(bytes.dropFirst(SnapcastHeader.byteCount)) == [UInt8](repeating: 0, count: 8))
    }

    @Test func clientInfoSendsVolumeAndMute() throws {
        let bytes = SnapcastMessageEncoder.clientInfo(volume: 142, muted: true, id: 3, now: 0)
        #expect(SnapcastServerBytes.header(of: bytes)?.type == .clientInfo)
        #expect(SnapcastServerBytes.jsonText(of: bytes) == #"{"muted":true,"volume":100}"#, "volume is clamped to 0...100")
    }

    @Test func requestIDsRunFrom1To9999AndWrap() {
        var ids = SnapcastRequestIDs()
        let first = (0..<10_000).map { _ in ids.next() }
        #expect(first.first == 1 && first[9_998] == 9_999 && first[9_999] == 1)
        #expect(!first.contains(0))
    }
}

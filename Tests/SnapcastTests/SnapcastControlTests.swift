import Basics
import Snapcast
import Testing

@Suite struct SnapcastControlTests {
    /// A trimmed `Server.GetStatus` answer of a real 0.26 server (two streams, one group, two clients).
    static let statusLine = """
        {"id":1,"jsonrpc":"2.0","result":{"server":{"groups":[{"clients":[{"config":{"instance":1,"latency":0,\
        "name":"","volume":{"muted":false,"percent":40}},"connected":true,"host":{"arch":"x86_64","ip":"127.0.0.1",\
        "mac":"00:00:00:00:00:00","name":"kitchen","os":"Linux"},"id":"kitchen","lastSeen":{"sec":1,"usec":2},\
        "snapclient":{"name":"Snapclient","protocolVersion":2,"version":"0.26.0"}},{"config":{"instance":2,\
        "latency":0,"name":"Porch","volume":{"muted":true,"percent":0}},"connected":false,"host":{"name":"box"},\
        "id":"box#2"}],"id":"4a3f","muted":false,"name":"","stream_id":"radio"}],"server":{"snapserver":\
        {"version":"0.26.0"}},"streams":[{"id":"radio","status":"playing","uri":{"raw":"pipe:///tmp/r"}},\
        {"id":"jazz","status":"idle"},{"id":"odd","status":"resting"}]}}}
        """

    @Test func requestsAreOneJSONLine() throws {
        let line = SnapcastControlRequest.setGroupStream(id: 3, groupID: "g", streamID: "jazz").line
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().contains("\n") == false)
        let json = try #require(JSONValue.parse(String(line.dropLast())))
        #expect(json["jsonrpc"] == "2.0")
        #expect(json["id"] == 3)
        #expect(json["method"] == "Group.SetStream")
        #expect(json["params"] == ["id": "g", "stream_id": "jazz"])
        #expect(SnapcastControlRequest.serverStatus(id: 1).line == #"{"id":1,"jsonrpc":"2.0","method":"Server.GetStatus"}"# + "\n")
        let volume = try #require(
            JSONValue.parse(String(SnapcastControlRequest.setClientVolume(id: 2, clientID: "c", percent: 140, muted: true).line)))
        #expect(volume["params"] == ["id": "c", "volume": ["percent": 100, "muted": true]])
    }

    @Test func aStatusIsReadIntoGroupsClientsAndStreams() throws {
        let message = try SnapcastControlMessage(line: Self.statusLine)
        let result = try #require(try message.result(for: 1))
        let status = try SnapcastServerStatus(result: result)
        #expect(status.groups.count == 1)
        let group = try #require(status.group(containing: "box#2"))
        #expect(group.id == "4a3f")
        #expect(group.streamID == "radio")
        #expect(group.clients[0] == .init(id: "kitchen", name: "kitchen", connected: true, volume: 40, muted: false))
        #expect(group.clients[1] == .init(id: "box#2", name: "Porch", connected: false, volume: 0, muted: true))
        #expect(status.group(containing: "nobody") == nil)
        #expect(status.streams.map(\.id) == ["radio", "jazz", "odd"])
        #expect(status.stream(id: "radio")?.status == .playing)
        #expect(status.stream(id: "odd")?.status == .unknown)
        #expect(status.stream(id: "none") == nil)
    }

    @Test func errorsAndNotificationsAreTyped() throws {
        let error = try SnapcastControlMessage(line: #"{"error":{"code":-32603,"message":"Stream not found"},"id":5,"jsonrpc":"2.0"}"#)
        #expect(error == .error(id: 5, code: -32603, message: "Stream not found"))
        #expect(throws: SnapcastControlError.server(code: -32603, message: "Stream not found")) { try error.result(for: 5) }
        #expect(try error.result(for: 6) == nil)
        let note = try SnapcastControlMessage(
            line: #"{"jsonrpc":"2.0","method":"Client.OnVolumeChanged","params":{"id":"kitchen","volume":{"muted":false,"percent":30}}}"#)
        guard case .notification(let method, let params) = note else {
            Issue.record("not a notification")
            return
        }
        #expect(method == "Client.OnVolumeChanged")
        #expect(params["volume"]?["percent"] == 30)
    }

    @Test func badLinesThrowTypedErrors() {
        #expect(throws: SnapcastControlError.notJSON) { try SnapcastControlMessage(line: "nope") }
        #expect(throws: SnapcastControlError.notJSON) { try SnapcastControlMessage(line: "[1]") }
        #expect(throws: SnapcastControlError.notJSONRPC) { try SnapcastControlMessage(line: #"{"id":1}"#) }
        #expect(throws: SnapcastControlError.malformedStatus("server")) { try SnapcastServerStatus(result: ["x": 1]) }
        #expect(throws: SnapcastControlError.malformedStatus("groups.id")) {
            try SnapcastServerStatus(result: ["server": ["groups": [["clients": []]], "streams": []]])
        }
    }

    @Test func linesAreSplitAndBounded() throws {
        var buffer = SnapcastControlLineBuffer()
        buffer.append(Array("{\"a\":1}\r\n{\"b\"".utf8))
        #expect(try buffer.next() == "{\"a\":1}")
        #expect(try buffer.next() == nil)
        buffer.append(Array(":2}\n".utf8))
        #expect(try buffer.next() == "{\"b\":2}")
        buffer.append([UInt8](repeating: 0x20, count: SnapcastControlLineBuffer.maximumLineLength + 1))
        #expect(throws: SnapcastControlError.lineTooLong(SnapcastControlLineBuffer.maximumLineLength)) { try buffer.next() }
    }
}

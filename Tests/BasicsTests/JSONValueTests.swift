import Basics
import FoundationEssentials
import Testing

@Suite struct JSONValueTests {
    @Test func encodesNumbersOneWay() {
        #expect(JSONValue.number(3).jsonText == "3")
        #expect(JSONValue.number(-42).jsonText == "-42")
        #expect(JSONValue.number(0.5).jsonText == "0.5")
        #expect(JSONValue.number(1e15 - 1).jsonText == "999999999999999")
        #expect(JSONValue.parse(JSONValue.number(1e300).jsonText) == .number(1e300))
    }

    @Test func statusObjectsPassThroughByteForByte() throws {
        // The `ctl status` contract (ARCHITECTURE §9): what the service wrote, a client prints unchanged.
        let status =
            #"{"jarvis_session_id":null,"media":{"ducked":false,"state":"playing","title":"Groove Salad","url":"https://ice.somafm.com/groovesalad-128-mp3","volume":0.5},"realtime_connected":true,"state":"idle","voice_volume":1}"#
        let value = try #require(JSONValue.parse(status))
        #expect(value.jsonText == status)
        #expect(value["media"]?["volume"]?.numberValue == 0.5 && value["state"]?.stringValue == "idle")
    }

    @Test func decodesEveryKindAndRefusesInvalidText() {
        #expect(JSONValue.parse(#"[null,true,1.25,"s",{"k":[]}]"#) == [nil, true, 1.25, "s", ["k": []]])
        #expect(JSONValue.parse("{") == nil)
        #expect(JSONValue.parse("") == nil)
    }
}

import Basics
import Control
import Testing

@Suite struct ControlCommandTests {
    static let all: [(String, String?, ControlCommand)] = [
        ("tap", nil, .tap), ("press", nil, .press), ("release", nil, .release),
        ("ask", "what's on my calendar?", .ask("what's on my calendar?")), ("status", nil, .status),
        ("play", "https://ice1.somafm.com/groovesalad-128-mp3", .play(url: "https://ice1.somafm.com/groovesalad-128-mp3")),
        ("station", "groovesalad", .station(name: "groovesalad")),
        ("podcast", "https://feeds.example.org/show.rss", .podcast(feedURL: "https://feeds.example.org/show.rss")),
        ("pause", nil, .pause), ("resume", nil, .resume), ("stop", nil, .stop), ("skip", nil, .skip),
        ("volume", "0.4", .volume(0.4)), ("reset", nil, .reset),
        ("say", "The laundry is done.", .say("The laundry is done.")), ("voice-volume", "0.5", .voiceVolume(0.5)),
        ("mute", "on", .mute(true)), ("timer", "add 600 pasta", .timer(.add(seconds: 600, label: "pasta"))),
        ("room-stream", "jazz", .roomStream("jazz"))
    ]

    @Test func everyVerbParsesAndRoundTripsOverTheWire() throws {
        #expect(Self.all.map(\.0) == ControlCommand.verbs)
        for (verb, argument, expected) in Self.all {
            let command = try ControlCommand(verb: verb, argument: argument)
            #expect(command == expected)
            #expect(command.verb == verb)
            let line = ControlWire.encodeRequest(command)
            #expect(line.last == UInt8(ascii: "\n"))
            #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
            #expect(try ControlWire.decodeRequest(line.dropLast()) == command)
        }
    }

    /// `ctl timer …`: the words after `timer`, a duration as the owner types it.
    @Test func timerRequests() throws {
        #expect(try TimerRequest("add 10m pasta sauce") == .add(seconds: 600, label: "pasta sauce"))
        #expect(try TimerRequest("add 1h30m") == .add(seconds: 5_400, label: nil))
        #expect(try TimerRequest("add 90s") == .add(seconds: 90, label: nil))
        #expect(try TimerRequest("list") == .list && TimerRequest("stop") == .stop)
        #expect(try TimerRequest("cancel pasta") == .cancel("pasta"))
        #expect(try TimerRequest("add 07:00 wake up") == .alarm(time: "07:00", label: "wake up"))
        #expect(try TimerRequest("add 07:00 wake up").argument == "add 07:00 wake up")
        #expect(throws: ControlCommandError.invalidDuration("ten")) { try TimerRequest("add ten") }
        #expect(throws: ControlCommandError.self) { try TimerRequest("add 25h") }
        #expect(throws: ControlCommandError.self) { try TimerRequest("snooze") }
        #expect(throws: ControlCommandError.self) { try TimerRequest("cancel") }
        for text in ["", "0", "5m1h", "1h1h", "10x", "1h30", "99999999999999999"] {
            #expect(TimerDuration.seconds(text) == nil, "\(text)")
        }
        #expect(TimerDuration.seconds("1h 5m 10s") == 3_910 && TimerDuration.seconds("45") == 45)
        #expect(TimerDuration.clock(598) == "9:58" && TimerDuration.clock(3_723) == "1:02:03")
    }

    @Test func requestLineShape() throws {
        #expect(
            String(decoding: ControlWire.encodeRequest(.volume(0.25)), as: UTF8.self)
                == #"{"argument":"0.25","command":"volume"}"# + "\n")
        #expect(String(decoding: ControlWire.encodeRequest(.tap), as: UTF8.self) == #"{"command":"tap"}"# + "\n")
        #expect(try ControlWire.decodeRequest(Array(#"{"command": "tap"}"#.utf8)) == .tap)
        #expect(try ControlWire.decodeRequest(Array(#"{"command": "tap", "argument": null}"#.utf8)) == .tap)
        #expect(try ControlWire.decodeRequest(Array(#"{"command":"play","argument":"http://a/b"}"#.utf8)) == .play(url: "http://a/b"))
    }

    @Test func voiceVolumeIsValidatedLikeVolumeAndSayWaitsLonger() throws {
        #expect(try ControlCommand(verb: "voice-volume", argument: "0") == .voiceVolume(0))
        for bad in ["2", "-0.1", "loud", "nan", ""] {
            #expect(throws: ControlCommandError.self) { try ControlCommand(verb: "voice-volume", argument: bad) }
        }
        #expect(throws: ControlCommandError.missingArgument(verb: "say", name: "TEXT")) { try ControlCommand(verb: "say", argument: nil) }
        #expect(ControlCommand.say("hi").answerTime > ControlCommand.tap.answerTime)
    }

    @Test func sayToEveryRoomRoundTripsAndNamesItsMistakes() throws {
        let command = try ControlCommand(verb: "say", argument: "--rooms all dinner is ready")
        #expect(command == .sayInEveryRoom("dinner is ready"))
        #expect(command.answerTime == ControlCommand.say("hi").answerTime)
        #expect(try ControlWire.decodeRequest(ControlWire.encodeRequest(command).dropLast()) == command)
        #expect(throws: ControlCommandError.invalidChoice(verb: "say --rooms", argument: "kitchen", expected: "all")) {
            try ControlCommand(verb: "say", argument: "--rooms kitchen hello")
        }
        #expect(throws: ControlCommandError.missingArgument(verb: "say --rooms all", name: "TEXT")) {
            try ControlCommand(verb: "say", argument: "--rooms all")
        }
    }

    @Test func volumeIsValidated() throws {
        #expect(try ControlCommand(verb: "volume", argument: "0") == .volume(0))
        #expect(try ControlCommand(verb: "volume", argument: "1.0") == .volume(1))
        for bad in ["2", "-0.1", "1.01", "loud", "nan", "inf", ""] {
            #expect(throws: ControlCommandError.self) { try ControlCommand(verb: "volume", argument: bad) }
        }
        #expect(throws: ControlCommandError.invalidVolume("2")) { try ControlCommand(verb: "volume", argument: "2") }
        #expect(ControlCommandError.invalidVolume("2").description == #"volume must be a number from 0.0 to 1.0, got "2""#)
    }

    @Test func argumentsAreCheckedPerVerb() {
        #expect(throws: ControlCommandError.missingArgument(verb: "ask", name: "TEXT")) { try ControlCommand(verb: "ask", argument: nil) }
        #expect(throws: ControlCommandError.missingArgument(verb: "play", name: "URL")) { try ControlCommand(verb: "play", argument: "") }
        #expect(throws: ControlCommandError.unexpectedArgument(verb: "tap", argument: "x")) { try ControlCommand(verb: "tap", argument: "x") }
        #expect(throws: ControlCommandError.unknownVerb("dance")) { try ControlCommand(verb: "dance", argument: nil) }
    }

    @Test func malformedRequestsAreRejected() {
        #expect(throws: ControlWireError.malformedRequest) { try ControlWire.decodeRequest(Array("tap".utf8)) }
        #expect(throws: ControlWireError.malformedRequest) { try ControlWire.decodeRequest(Array(#"{"verb":"tap"}"#.utf8)) }
        #expect(throws: ControlWireError.invalidCommand(.invalidVolume("7"))) {
            try ControlWire.decodeRequest(Array(#"{"command":"volume","argument":"7"}"#.utf8))
        }
    }

    @Test func mediaVerbs() {
        let media = Self.all.map(\.2).filter(\.isMedia).map(\.verb)
        #expect(media == ["play", "station", "podcast", "pause", "resume", "stop", "skip", "volume"])
    }
}

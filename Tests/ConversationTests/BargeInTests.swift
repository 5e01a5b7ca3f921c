import Realtime
import Testing

@testable import Conversation

/// Barge-in with the local near-end detector (`BargeInRule(localDetector: true)`, what the service runs):
/// the speaker's echo never interrupts or becomes a turn; near-end speech pauses the assistant at once
/// and stops it once it has lasted `minimumSpeech`, and a shorter sound lets it go on; a tap
/// always interrupts.
@Suite struct BargeInTests {
    static let rule = BargeInRule(localDetector: true)

    /// Hands-free, the assistant mid-answer: 2 s of A1 (response R1, still active) received, `played` heard.
    func speaking(played: Int = 12_000, rule: BargeInRule = BargeInTests.rule) -> EngineHarness {
        var h = EngineHarness(configuration: .init(tools: [AskJarvisTool.definition.functionTool], bargeIn: rule))
        h.startHandsFree()
        h.server(.speechStarted(audioStartMs: 0, itemID: "U1"), after: 100)
        h.server(.speechStopped(audioEndMs: 900, itemID: "U1"), after: 800)
        h.server(.responseCreated(ResponseInfo(id: "R1", status: "in_progress")))
        h.server(EngineHarness.delta("R1", "A1", samples: 48_000), after: 100)
        h.handle(.voicePlayed(samples: played), after: 500)
        return h
    }

    @Test func theServersVADOnTheEchoNeitherInterruptsNorBecomesATurn() {
        var h = speaking()
        let state = h.state
        h.server(.speechStarted(audioStartMs: 2_000, itemID: "U2"), after: 10)
        #expect(h.lastSent.isEmpty && !h.last.contains(.flushVoice), "no near-end speech: the assistant goes on")
        #expect(h.state == state)
        h.server(.speechStopped(audioEndMs: 2_600, itemID: "U2"), after: 600)
        #expect(h.lastSent == [.conversationItemDelete(itemID: "U2")], "the echo turn is removed, not answered")
        #expect(h.state == state)
        #expect(h.engine.echoTurnsIgnored == 1 && h.engine.bargeIns == 0, "status counts it")
        // The answer plays to its end and the conversation listens again.
        h.server(.outputAudioDone(responseID: "R1", itemID: "A1"))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5)
        h.handle(.voicePlayed(samples: 48_000), after: 1_500)
        #expect(h.state == .listening)
        #expect(!h.last.contains(.flushVoice))
    }

    @Test func nearEndSpeechPausesTheAssistantAtOnceAndStopsItAfterTheMinimumSpeech() {
        var h = speaking(played: 12_000)
        h.handle(.voicePlayed(samples: 12_480), after: 20)  // heard until the detector's verdict
        h.handle(.nearEndSpeech(true), after: 0)
        #expect(h.last.contains(.pauseVoice) && !h.last.contains(.flushVoice), "silent at once, not yet stopped")
        #expect(h.lastSent.isEmpty && h.state == .fillerSpeaking && h.engine.bargeIns == 0)
        #expect(h.engine.armedTimers[.bargeInConfirmation] == h.now + .milliseconds(400), "400 ms from the speech's start")
        #expect(h.fireNextTimer() == .bargeInConfirmation)
        #expect(h.last.contains(.flushVoice))
        #expect(
            h.lastSent == [.responseCancel(responseID: nil), .conversationItemTruncate(itemID: "A1", contentIndex: 0, audioEndMs: 520)],
            "the server no longer cancels by itself (interrupt_response: false)")
        #expect(h.state == .userSpeaking)
        #expect(h.engine.bargeIns == 1)
        #expect(h.engine.armedTimers[.serverTurnWait] != nil)
        // The server's VAD reports the user's turn: it is theirs, and gets answered.
        h.server(.speechStarted(audioStartMs: 2_500, itemID: "U2"), after: 80)
        #expect(h.lastSent.isEmpty && h.state == .userSpeaking)
        #expect(h.engine.armedTimers[.serverTurnWait] == nil)
        h.handle(.nearEndSpeech(false), after: 900)
        h.server(.speechStopped(audioEndMs: 3_500, itemID: "U2"), after: 200)
        #expect(h.lastSent == [.responseCreate(nil)] || (h.engine.response.deferredIsAnswer != nil), "answered once R1 is done")
        #expect(h.state == .processing)
    }

    /// The cut answer still logs its `turn:` line, saying it was cut; the interruption's answer logs its own.
    @Test func aCutAnswerLogsItsTurnLineSayingItWasCut() throws {
        for serverFirst in [false, true] {
            var h = speaking()
            if serverFirst { h.server(.speechStarted(audioStartMs: 2_000, itemID: "U2"), after: 10) }
            h.handle(.nearEndSpeech(true), after: 10)
            #expect(h.fireNextTimer() == .bargeInConfirmation)
            #expect(h.state == .userSpeaking)
            let cut = try #require(h.last.compactMap { if case .turnCompleted(let m) = $0 { m } else { nil } }.first)
            #expect(cut.cutByBargeIn)
            #expect(cut.firstAudioMs == 100)
            #expect(
                h.last.contains {
                    if case .log(.info, let line) = $0 {
                        line.hasPrefix("turn: first_audio_ms=100") && line.hasSuffix(" cut_by=barge_in")
                    } else {
                        false
                    }
                })
            // The interruption is a turn of its own, answered and logged without the mark.
            if !serverFirst { h.server(.speechStarted(audioStartMs: 2_500, itemID: "U2"), after: 80) }
            h.handle(.nearEndSpeech(false), after: 900)
            h.server(.speechStopped(audioEndMs: 3_500, itemID: "U2"), after: 200)
            h.server(.responseDone(ResponseInfo(id: "R1", status: "cancelled")), after: 10)
            h.server(.responseCreated(ResponseInfo(id: "R2", status: "in_progress")), after: 10)
            h.server(EngineHarness.delta("R2", "A2", samples: 24_000), after: 100)
            h.server(.outputAudioDone(responseID: "R2", itemID: "A2"))
            h.server(.responseDone(ResponseInfo(id: "R2", status: "completed")), after: 5)
            h.handle(.voicePlayed(samples: 24_000), after: 1_000)
            #expect(h.state == .listening)
            let answered = try #require(h.last.compactMap { if case .turnCompleted(let m) = $0 { m } else { nil } }.first)
            #expect(!answered.cutByBargeIn)
            #expect(!answered.description.contains("cut_by"))
        }
    }

    @Test func aShortBlipOfNearEndSpeechPausesButDoesNotInterrupt() {
        var h = speaking()
        h.handle(.nearEndSpeech(true), after: 10)
        #expect(h.last.contains(.pauseVoice))
        h.handle(.nearEndSpeech(false), after: 20)
        #expect(h.last.contains(.cancelTimer(.bargeInConfirmation)))
        #expect(h.engine.armedTimers[.bargeInConfirmation] == nil)
        #expect(h.fireNextTimer() == .voiceResume)
        #expect(h.last.contains(.resumeVoice))
        #expect(h.state == .fillerSpeaking && h.engine.bargeIns == 0)
    }

    @Test func theServersTurnWithNearEndSpeechPausesTheAssistantAtOnce() {
        var h = speaking()
        h.server(.speechStarted(audioStartMs: 2_000, itemID: "U2"), after: 10)
        #expect(h.state == .fillerSpeaking)
        h.handle(.nearEndSpeech(true), after: 30)
        #expect(h.last.contains(.pauseVoice), "two detectors agree: no confirmation wait")
        #expect(h.engine.armedTimers[.bargeInConfirmation] == h.now + .milliseconds(400))
        #expect(h.fireNextTimer() == .bargeInConfirmation)
        #expect(h.last.contains(.flushVoice))
        #expect(h.state == .userSpeaking)
        h.server(.speechStopped(audioEndMs: 3_000, itemID: "U2"), after: 900)
        #expect(!h.lastSent.contains(.conversationItemDelete(itemID: "U2")))
        #expect(h.state == .processing)
        #expect(h.engine.bargeIns == 1 && h.engine.echoTurnsIgnored == 0)
    }

    /// With a confirmation configured, a blip too short to pause by itself still counts for the server's turn.
    @Test func nearEndSpeechJustBeforeTheServersTurnPausesTheAssistantAndMoreStopsIt() {
        var h = speaking(rule: BargeInRule(localDetector: true, confirmation: .milliseconds(20)))
        h.handle(.nearEndSpeech(true), after: 10)
        h.handle(.nearEndSpeech(false), after: 10)  // too short to pause by itself
        h.server(.speechStarted(audioStartMs: 2_000, itemID: "U2"), after: 200)
        #expect(h.last.contains(.pauseVoice) && !h.last.contains(.flushVoice))
        #expect(h.engine.armedTimers[.voiceResume] == h.now + .milliseconds(500))
        h.handle(.nearEndSpeech(true), after: 100)
        #expect(h.engine.armedTimers[.voiceResume] == nil)
        #expect(h.fireNextTimer() == .bargeInConfirmation)
        #expect(h.last.contains(.flushVoice))
        #expect(h.state == .userSpeaking)
        h.handle(.nearEndSpeech(false), after: 300)
        h.server(.speechStopped(audioEndMs: 3_000, itemID: "U2"), after: 500)
        #expect(!h.lastSent.contains(.conversationItemDelete(itemID: "U2")), "the held turn is the user's")
    }

    /// The audio side may pause the voice by itself at the detector's verdict exactly while the engine would:
    /// armed while the answer plays, disarmed once the engine has paused (after its own pause), armed again
    /// when the answer goes on, disarmed when it ends.
    @Test func theAudioSidePausesByItselfExactlyWhileTheEngineWould() {
        var h = speaking()
        #expect(h.engine.nearEndPauseArmed)
        h.handle(.nearEndSpeech(true), after: 10)
        let pause = h.last.firstIndex(of: .pauseVoice), disarm = h.last.firstIndex(of: .pauseVoiceOnNearEndSpeech(false))
        #expect(pause != nil && disarm != nil && pause! < disarm!, "the engine pauses before it disarms: \(h.last)")
        h.handle(.nearEndSpeech(false), after: 100)
        #expect(h.fireNextTimer() == .voiceResume)
        let resume = h.last.firstIndex(of: .resumeVoice), rearm = h.last.firstIndex(of: .pauseVoiceOnNearEndSpeech(true))
        #expect(resume != nil && rearm != nil && resume! < rearm!, "\(h.last)")
        h.server(.outputAudioDone(responseID: "R1", itemID: "A1"))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5)
        h.handle(.voicePlayed(samples: 48_000), after: 1_500)
        #expect(h.state == .listening)
        #expect(!h.engine.nearEndPauseArmed)
        // Without a local detector, or with a confirmation to wait for, it is never armed.
        for rule in [BargeInRule(localDetector: false), BargeInRule(localDetector: true, confirmation: .milliseconds(20))] {
            let other = speaking(rule: rule)
            #expect(!other.engine.nearEndPauseArmed)
        }
    }

    /// A sound in the room (a cough, a clatter, the canceller's residue of a loud passage) that the detector
    /// hears for less than `minimumSpeech`: the answer pauses, then goes on from where it stopped.
    @Test func nearEndSpeechShorterThanTheMinimumPausesTheAnswerWhichThenGoesOn() {
        var h = speaking(played: 12_000)
        h.handle(.nearEndSpeech(true), after: 10)
        #expect(h.last.contains(.pauseVoice))
        h.server(.speechStarted(audioStartMs: 2_000, itemID: "U2"), after: 50)  // the server's VAD hears it too
        h.handle(.nearEndSpeech(false), after: 200)  // 250 ms in all
        #expect(h.engine.armedTimers[.bargeInConfirmation] == nil)
        #expect(h.engine.armedTimers[.voiceResume] == h.now + .milliseconds(500))
        h.handle(.nearEndSpeech(true), after: 100)  // 100 ms more: 350 in all
        h.handle(.nearEndSpeech(false), after: 100)
        #expect(h.fireNextTimer() == .voiceResume)
        #expect(h.last.contains(.resumeVoice) && !h.last.contains(.flushVoice))
        #expect(h.lastSent.isEmpty && h.state == .fillerSpeaking)
        #expect(h.engine.pausesResumed == 1 && h.engine.bargeIns == 0)
        #expect(h.last.contains { if case .log(.info, let line) = $0 { line.contains("lasted 350 ms") } else { false } })
        // The server's turn on it is not the user's, and the answer plays to its end, never truncated.
        h.server(.speechStopped(audioEndMs: 2_600, itemID: "U2"), after: 200)
        #expect(h.lastSent == [.conversationItemDelete(itemID: "U2")])
        h.server(.outputAudioDone(responseID: "R1", itemID: "A1"))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5)
        h.handle(.voicePlayed(samples: 48_000), after: 1_500)
        #expect(h.state == .listening && h.lastSent.isEmpty)
    }

    /// Possible near-end speech pauses the answer at once and holds the pause while it lasts, but
    /// however long it lasts it never stops the assistant: only the verdict itself adds up to 400 ms.
    @Test func possibleNearEndSpeechPausesTheAnswerButNeverStopsIt() {
        var h = speaking(played: 12_000)
        h.handle(.possibleNearEndSpeech(true), after: 10)
        #expect(h.last.contains(.pauseVoice) && !h.last.contains(.flushVoice), "silent at once")
        #expect(h.engine.armedTimers[.bargeInConfirmation] == nil, "nothing counts toward a stop yet")
        #expect(h.engine.armedTimers[.voiceResume] == nil, "held while it lasts")
        #expect(h.last.contains { if case .log(.info, let line) = $0 { line.contains("may be talking") } else { false } })
        h.handle(.voicePlayed(samples: 12_480), after: 900)  // a fan switched on: 900 ms of it
        #expect(h.engine.voice.pause != nil && h.engine.bargeIns == 0 && h.lastSent.isEmpty)
        h.handle(.possibleNearEndSpeech(false), after: 10)
        #expect(h.engine.armedTimers[.voiceResume] == h.now + .milliseconds(500))
        h.handle(.possibleNearEndSpeech(true), after: 100)  // again before the resume
        #expect(h.engine.armedTimers[.voiceResume] == nil)
        h.handle(.possibleNearEndSpeech(false), after: 100)
        #expect(h.fireNextTimer() == .voiceResume)
        #expect(h.last.contains(.resumeVoice) && !h.last.contains(.flushVoice))
        #expect(h.engine.pausesResumed == 1 && h.engine.bargeIns == 0 && h.lastSent.isEmpty)
    }

    /// A sound that keeps possible near-end speech on (a noise the room floor has not learnt yet) holds the answer
    /// no longer than `possibleSpeechLimit`: then it goes on, and a verdict that goes on does not pause it again.
    @Test func theLooserVerdictAloneHoldsAPauseAtMostItsLimit() {
        var h = speaking(played: 12_000)
        h.handle(.possibleNearEndSpeech(true), after: 10)
        #expect(h.last.contains(.pauseVoice))
        #expect(h.engine.armedTimers[.possibleSpeechLimit] == h.now + .milliseconds(1_500))
        // The verdict itself, briefly: its own rule takes over, and hands back when it ends.
        h.handle(.nearEndSpeech(true), after: 300)
        #expect(h.engine.armedTimers[.possibleSpeechLimit] == nil)
        h.handle(.nearEndSpeech(false), after: 100)
        #expect(h.engine.armedTimers[.possibleSpeechLimit] == h.now + .milliseconds(1_500))
        #expect(h.engine.armedTimers[.voiceResume] == nil)
        #expect(h.fireNextTimer() == .possibleSpeechLimit)
        #expect(h.last.contains(.resumeVoice) && !h.last.contains(.flushVoice))
        #expect(h.engine.voice.pause == nil && h.engine.pausesResumed == 1 && h.engine.bargeIns == 0)
        #expect(h.last.contains { if case .log(.info, let line) = $0 { line.contains("held the assistant for 1500 ms") } else { false } })
        h.handle(.voicePlayed(samples: 13_000), after: 100)
        #expect(!h.last.contains(.pauseVoice) && h.engine.voice.pause == nil, "still on: no new pause")
        h.handle(.possibleNearEndSpeech(false), after: 100)
        h.handle(.possibleNearEndSpeech(true), after: 100)
        #expect(h.last.contains(.pauseVoice), "a new onset pauses again")
    }

    /// Paused by possible near-end speech, the verdict that follows stops the assistant after its own 400 ms, and
    /// the pause does not end while either verdict is on.
    @Test func theVerdictAfterAPossibleOneStopsTheAssistantAfterItsOwnMinimum() {
        var h = speaking(played: 12_000)
        h.handle(.possibleNearEndSpeech(true), after: 10)
        #expect(h.last.contains(.pauseVoice))
        h.handle(.nearEndSpeech(true), after: 48)
        #expect(h.engine.armedTimers[.bargeInConfirmation] == h.now + .milliseconds(400))
        h.handle(.nearEndSpeech(false), after: 150)  // a gap between his words; possible near-end speech holds on
        #expect(h.engine.armedTimers[.voiceResume] == nil, "the possible verdict still holds the pause")
        h.handle(.nearEndSpeech(true), after: 100)
        #expect(h.engine.armedTimers[.bargeInConfirmation] == h.now + .milliseconds(250))
        #expect(h.fireNextTimer() == .bargeInConfirmation)
        #expect(h.last.contains(.flushVoice) && h.engine.bargeIns == 1 && h.state == .userSpeaking)
    }

    /// Possible near-end speech pauses only where the verdict would: over the assistant's voice, with no
    /// confirmation wait configured.
    @Test func possibleNearEndSpeechPausesNothingElse() {
        var quiet = EngineHarness(configuration: .init(tools: [AskJarvisTool.definition.functionTool], bargeIn: Self.rule))
        quiet.startHandsFree()
        quiet.handle(.possibleNearEndSpeech(true), after: 10)
        #expect(!quiet.last.contains(.pauseVoice), "no voice playing")
        var waiting = speaking(played: 12_000, rule: BargeInRule(localDetector: true, confirmation: .milliseconds(20)))
        waiting.handle(.possibleNearEndSpeech(true), after: 10)
        #expect(!waiting.last.contains(.pauseVoice), "a confirmation wait is for the verdict")
        var serverOnly = speaking(played: 12_000, rule: BargeInRule(localDetector: false))
        serverOnly.handle(.possibleNearEndSpeech(true), after: 10)
        #expect(!serverOnly.last.contains(.pauseVoice))
    }

    /// Stopped after a pause, the item is truncated at what was heard before the pause.
    @Test func aStopAfterAPauseTruncatesAtThePause() {
        var h = speaking(played: 12_000)
        h.handle(.voicePlayed(samples: 12_480), after: 10)
        h.handle(.nearEndSpeech(true), after: 0)
        h.handle(.voicePlayed(samples: 12_480), after: 5)  // the device's last samples; then the playhead stands
        h.handle(.voicePlayed(samples: 12_480), after: 200)
        h.fire(.bargeInConfirmation)
        #expect(h.lastSent == [.responseCancel(responseID: nil), .conversationItemTruncate(itemID: "A1", contentIndex: 0, audioEndMs: 520)])
    }

    /// The answer's audio ran out while paused (nothing left to hold): the channel is released with the turn.
    @Test func aPauseOverTheAnswersEndIsReleased() {
        var h = speaking(played: 12_000)
        h.server(.outputAudioDone(responseID: "R1", itemID: "A1"))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5)
        h.handle(.voicePlayed(samples: 48_000), after: 1_490)
        h.handle(.nearEndSpeech(true), after: 0)
        h.fire(.bargeInConfirmation)
        #expect(h.state == .listening || h.last.contains(.resumeVoice) || !h.last.contains(.pauseVoice))
        #expect(h.engine.voice.pause == nil)
    }

    /// A tap while paused stops the assistant: the flush ends the pause too.
    @Test func aTapWhilePausedStops() {
        var h = speaking()
        h.handle(.nearEndSpeech(true), after: 10)
        #expect(h.last.contains(.pauseVoice))
        h.handle(.button(.tap(pressedAt: h.now)), after: 10)
        #expect(h.last.contains(.flushVoice))
        #expect(h.engine.voice.pause == nil)
        let state = h.state
        h.fire(.bargeInConfirmation)  // the pause's speech timer, if still armed, finds nothing to stop
        h.fire(.voiceResume)
        #expect(h.state == state && !h.last.contains(.resumeVoice) && h.engine.bargeIns == 0)
    }

    @Test func aLocalBargeInThatTheServerNeverHearsListensAgain() {
        var h = speaking()
        h.handle(.nearEndSpeech(true), after: 10)
        h.fire(.bargeInConfirmation)
        h.fire(.bargeInConfirmation)
        #expect(h.state == .userSpeaking)
        h.handle(.nearEndSpeech(false), after: 300)
        h.fire(.serverTurnWait)
        #expect(h.state == .processing || h.state == .listening)
        #expect(h.engine.armedTimers[.userSpeakingLimit] == nil)
    }

    @Test func aTapInterruptsWithoutAnyDetector() {
        var h = speaking()
        h.handle(.button(.tap(pressedAt: h.now)), after: 10)
        #expect(h.last.contains(.flushVoice))
        #expect(h.lastSent.first == .responseCancel(responseID: nil))
    }

    @Test func afterTheEchoGuardTheServersTurnNeedsNoConfirmation() {
        var h = speaking(played: 0)
        h.server(.outputAudioDone(responseID: "R1", itemID: "A1"))
        h.server(.responseDone(ResponseInfo(id: "R1", status: "completed")), after: 5)
        h.handle(.voicePlayed(samples: 48_000), after: 2_000)
        #expect(h.state == .listening)
        h.server(.speechStarted(audioStartMs: 5_000, itemID: "U2"), after: 300)
        #expect(h.state == .listening, "300 ms after the voice stopped its echo may still be heard")
        h.server(.speechStopped(audioEndMs: 5_400, itemID: "U2"), after: 400)
        #expect(h.lastSent == [.conversationItemDelete(itemID: "U2")])
        h.server(.speechStarted(audioStartMs: 6_000, itemID: "U3"), after: 600)
        #expect(h.state == .userSpeaking, "past the echo guard the server's VAD is trusted")
        h.server(.speechStopped(audioEndMs: 7_000, itemID: "U3"), after: 1_000)
        #expect(h.lastSent == [.responseCreate(nil)])
    }

    @Test func withoutALocalDetectorTheServersVADIsTrustedAndTheEngineCancels() {
        var h = speaking(rule: BargeInRule(localDetector: false))
        h.server(.speechStarted(audioStartMs: 2_000, itemID: "U2"), after: 10)
        #expect(h.last.contains(.flushVoice))
        #expect(h.lastSent.first == .responseCancel(responseID: nil))
        #expect(h.state == .userSpeaking)
        #expect(h.engine.bargeIns == 1)
    }
}

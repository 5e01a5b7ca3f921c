import ALSATestbed
import Glibc
import Realtime
import TestProcess
import TestSupport
import Testing

extension ServicesOneAtATime {
    /// `jarvis-voice run` against a Realtime stand-in that speaks the current API: it refuses every model shut
    /// down on 2027-01-20, reasoning models speak a preamble of their own, and an account can run out of
    /// credit. The service's default configuration must answer, say one acknowledgement per request, stop a
    /// preamble the way it stops an answer, and tell the owner once when the credit is gone.
    @Suite(.timeLimit(.minutes(3))) struct CurrentModelRunTests {
        static let answerHz = 1_500.0
        static let preambleHz = 700.0
        static let fillerHz = 1_000.0
        /// Words of the product's filler rule (`AskJarvisTool`'s acknowledgement section): the stand-in's model
        /// speaks a filler when its instructions contain them.
        static let fillerRule = "say one short, natural acknowledgement"
        let dir = TemporaryDirectory()

        static func tone(_ hz: Double, milliseconds: Int) -> [Int16] {
            (0..<(24 * milliseconds)).map { Int16(8_000 * sin(Double($0) * 2 * .pi * hz / 24_000)) }
        }

        /// A stand-in whose model speaks a preamble when it reasons and a filler when told to.
        static func script(reasoning: Bool) -> RealtimeStandInScript {
            var script = RealtimeStandInScript()
            script.answerAudio = tone(answerHz, milliseconds: 800)
            if reasoning { script.preambleAudio = tone(preambleHz, milliseconds: 600) }
            script.fillerMarker = fillerRule
            script.fillerAudio = tone(fillerHz, milliseconds: 600)
            return script
        }

        /// A spoken question through the service with `realtimeSection`; returns the service once the answer
        /// has been heard.
        func spokenTurn(_ realtime: RealtimeStandIn, _ jarvis: TermLLMStandIn, name: String, realtimeSection: String) async throws
            -> ServiceUnderTest
        {
            let question = try await SpokenTurnTests.micInput(leadMilliseconds: 100, in: dir)
            let service = try ServiceUnderTest.start(in: dir, name: name, realtime: realtime, jarvis: jarvis, realtimeSection: realtimeSection)
            try #require(try await service.ctlWhenReady("tap"), "log:\n\(service.logText)")
            try service.speak(question)
            #expect(await realtime.waitForClientEvent("conversation.item.create"), "log:\n\(service.logText)")
            let heard = await service.heard(Self.answerHz, atLeast: 600)
            #expect(heard >= 600, "heard \(heard) ms of the answer; log:\n\(service.logText)")
            return service
        }

        /// The default configuration names no model: the service asks for the current default, which the
        /// stand-in (refusing the whole 2027-01-20 list) serves; its preamble is the one acknowledgement.
        @Test func theDefaultModelAnswersWithOneAcknowledgement() async throws {
            #expect(RealtimeStandInScript().shutDownModels == RealtimeStandInScript.shutDownOnJanuary20th2027)
            let realtime = try await RealtimeStandIn.start(script: Self.script(reasoning: true))
            let jarvis = try await TermLLMStandIn.start()
            let service = try await spokenTurn(realtime, jarvis, name: "default", realtimeSection: "idle_timeout_s = 10")
            defer { _ = service.process.signal(SIGKILL) }

            #expect(
                realtime.requestedModels.allSatisfy { $0 == RealtimeModels.defaultID } && !realtime.requestedModels.isEmpty,
                "\(realtime.requestedModels)")
            #expect(realtime.refusedUpgrades == 0)
            let update = try #require(realtime.clientEvents(ofType: "session.update").first?.json["session"])
            #expect(update["reasoning"]?["effort"]?.stringValue == "low")
            #expect(update["instructions"]?.stringValue?.contains(Self.fillerRule) == false, "a model with preambles is told no filler")
            #expect(realtime.spokenItems.map(\.kind) == [.preamble, .answer], "one acknowledgement, then the answer")
            #expect(await service.heard(Self.preambleHz, atLeast: 300) >= 300, "the preamble is played; log:\n\(service.logText)")
            // The turn's journal line comes when the turn ends, after the answer has played.
            #expect(await waitUntil { service.logText.contains("turn: ") }, "log:\n\(service.logText)")

            await service.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }

        /// A model without preambles is told to say the filler: again one acknowledgement, and no `reasoning`.
        @Test func aModelWithoutPreamblesSaysTheFillerItIsToldTo() async throws {
            let realtime = try await RealtimeStandIn.start(script: Self.script(reasoning: false))
            let jarvis = try await TermLLMStandIn.start()
            let service = try await spokenTurn(
                realtime, jarvis, name: "filler", realtimeSection: "idle_timeout_s = 10\nmodel = \"gpt-realtime-1.5\"")
            defer { _ = service.process.signal(SIGKILL) }

            #expect(realtime.requestedModels.allSatisfy { $0 == "gpt-realtime-1.5" })
            let update = try #require(realtime.clientEvents(ofType: "session.update").first?.json["session"])
            #expect(update["reasoning"] == nil, "a model without reasoning gets no reasoning setting")
            #expect(update["instructions"]?.stringValue?.contains(Self.fillerRule) == true)
            #expect(realtime.spokenItems.map(\.kind) == [.filler, .answer])

            await service.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }

        /// An account out of credit: one tap gives one refused upgrade (no retries), the out-of-credit sound,
        /// one journal line saying what to do, and idle again within 3 s; the next tap tries again.
        @Test func anAccountOutOfCreditIsToldOnceAndTheNextTapTriesAgain() async throws {
            var script = Self.script(reasoning: true)
            script.upgradeRefusal = .creditExhausted
            let realtime = try await RealtimeStandIn.start(script: script)
            let jarvis = try await TermLLMStandIn.start()
            let service = try ServiceUnderTest.start(in: dir, name: "credit", realtime: realtime, jarvis: jarvis)
            defer { _ = service.process.signal(SIGKILL) }
            try #require(await service.waitForState("idle"), "log:\n\(service.logText)")

            // `status` is polled through `ctl` child processes, slow on a loaded machine: the time from the error
            // to idle is measured by the same polling at both ends, and the tap's own part is the log's order.
            let tapped = ContinuousClock.now
            #expect(try await service.ctl("tap").status == 0)
            let line = "the OpenAI account is out of credit: add credit at https://platform.openai.com/settings/organization/billing"
            let shown = try await service.waitForStatus { status in
                status["state"]?.stringValue == "error" || (status["state"]?.stringValue == "idle" && realtime.upgradeAttempts > 0)
            }
            if shown?["state"]?.stringValue == "error" {
                let failed = ContinuousClock.now
                #expect(await service.waitForState("idle"), "log:\n\(service.logText)")
                let back = ContinuousClock.now - failed
                print("out of credit: error seen \(failed - tapped) after the tap, idle \(back) later")
                #expect(back < .seconds(3), "idle again \(back) after the error")
            }
            #expect(await waitUntil { service.logText.contains("state: error -> idle (error_hold)") }, "log:\n\(service.logText)")
            #expect(service.logText.contains(line), "log:\n\(service.logText)")
            #expect(service.logText.contains("state: connecting -> error (realtime failed, not retrying)"), "log:\n\(service.logText)")
            #expect((1...2).contains(realtime.upgradeAttempts), "\(realtime.upgradeAttempts) upgrade attempts for one tap")
            #expect(service.logText.split(separator: "\n").filter { $0.contains("out of credit") }.count == 1, "log:\n\(service.logText)")
            #expect(await service.heard(293.66, atLeast: 60) >= 60, "the out-of-credit sound; log:\n\(service.logText)")

            let before = realtime.upgradeAttempts
            #expect(try await service.ctl("tap").status == 0)
            #expect(await waitUntil { realtime.upgradeAttempts > before }, "the next tap tries again")
            #expect(await service.waitForState("idle"), "log:\n\(service.logText)")

            await service.stop()
            await realtime.shutdown()
            await jarvis.stop()
        }

        /// A barge-in while a preamble plays (each response opens with one; the answer's response carries the
        /// preamble, then the answer): the truncate names the preamble at what was heard, every unheard item
        /// queued after it, the answer among them, is deleted, and the speaker falls silent within the same
        /// bound as for a single-item answer (NonLinearEchoBargeInTests).
        @Test func aBargeInDuringThePreambleCutsThePreambleAndRemovesTheAnswer() async throws {
            let kitchen = try await NonLinearEchoBargeInTests.Kitchen.start(in: dir, name: "preamble") { script in
                script.preambleAudio = try await SpeechSynthesis.speak(
                    "One moment please, I am asking Jarvis about your calendar.",
                    rate: 24_000, directory: dir.path, name: "preamble")
                script.preambleBeforeAnswer = true
            }
            let (service, realtime) = (kitchen.service, kitchen.realtime)
            defer { _ = service.process.signal(SIGKILL) }
            try await kitchen.answerPlayedAlone()

            try service.speak(kitchen.question + kitchen.silence)
            try #require(await service.waitForState("ai_speaking"), "log:\n\(service.logText)")
            try await service.playOn(milliseconds: 600)
            let logBeforeTalk = service.logText.count
            let heardAtSpeech = service.playedFrames
            // the first turn's answer may have been cut at its very end by this turn's question
            let truncatesBefore = realtime.clientEvents(ofType: "conversation.item.truncate").count
            try service.speak(kitchen.interruption + kitchen.silence)
            #expect(
                await waitUntil { realtime.clientEvents(ofType: "conversation.item.truncate").count > truncatesBefore },
                "log:\n\(service.logText)")
            let silencing = try await NonLinearEchoBargeInTests().whenTheAnswerFellSilent(
                in: service, talker: kitchen.interruption, heardAt: heardAtSpeech, logBefore: logBeforeTalk
            ).silencing

            // Every response of the turn opens with a preamble, and the server sends faster than real time: by the
            // time the user talks, the call's preamble may still play with the answer's response queued behind it.
            // The item under the playhead is cut; everything queued after it is removed.
            let truncate = try #require(realtime.clientEvents(ofType: "conversation.item.truncate").dropFirst(truncatesBefore).first?.json)
            let items = realtime.spokenItems
            let cut = try #require(items.firstIndex { $0.id == truncate["item_id"]?.stringValue }, "\(truncate)")
            let preamble = items[cut]
            #expect(preamble.kind == .preamble, "the preamble is cut, not the answer: \(truncate)")
            let answer = try #require(items[(cut + 1)...].firstIndex { $0.kind == .answer }, "the answer had arrived")
            let deleted = realtime.clientEvents(ofType: "conversation.item.delete").compactMap { $0.json["item_id"]?.stringValue }
            for unheard in items[(cut + 1)...answer] {
                #expect(deleted.contains(unheard.id), "the unheard \(unheard.kind) is removed: \(deleted)")
            }
            let heardMs = Int(truncate["audio_end_ms"]?.numberValue ?? -1)
            #expect(heardMs >= 600 && heardMs < preamble.audioMilliseconds, "cut at \(heardMs) ms of \(preamble.audioMilliseconds)")
            #expect(realtime.rejections.isEmpty, "\(realtime.rejections)")
            #expect(
                silencing.latency <= silencing.bound,
                "the assistant stopped \(silencing.latency) ms after the user started talking (\(silencing.xruns) xruns); log:\n\(service.logText)")
            print("barge-in during a preamble: silenced \(silencing.latency) ms after the talker started; preamble cut at \(heardMs) ms")

            await kitchen.stop()
        }
    }
}

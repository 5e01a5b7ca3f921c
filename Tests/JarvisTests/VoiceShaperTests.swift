import Jarvis
import Testing

@Suite struct VoiceShaperTests {
    let shaper = VoiceShaper(maxWords: 150)

    @Test func stripsHeadingsBulletsEmphasisLinksAndCode() {
        let markdown = """
            ## Today's weather

            It is **22 degrees** and *sunny* in [Sydney](https://example.com/sydney).
            - Wind: `12 km/h`
            - Humidity: __40%__
            1. Take a ~~coat~~ hat
            > Quoted advice
            ---
            ```swift
            let x = 1
            ```
            See <https://example.com> and the snake_case_name.
            """
        #expect(
            shaper.shape(markdown)
                == "Today's weather. It is 22 degrees and sunny in Sydney. Wind: 12 km/h. Humidity: 40%. Take a coat hat. Quoted advice. I've left out a code block. See and the snake_case_name."
        )
    }

    @Test func tablesBecomeCommaLists() {
        let markdown = """
            | Day | Forecast |
            |-----|:--------:|
            | Monday | Rain |
            """
        #expect(shaper.shape(markdown) == "Day, Forecast. Monday, Rain.")
    }

    @Test func imagesKeepTheirAltText() {
        #expect(shaper.shape("![a red door](door.png) is open") == "a red door is open.")
    }

    @Test func shortAnswersAreUntouched() {
        #expect(shaper.shape("Done, the kitchen lights are off.") == "Done, the kitchen lights are off.")
    }

    @Test func longAnswersAreCutAtASentenceWithAnOffer() {
        let sentence = "This sentence has exactly eight words in it."
        let text = Array(repeating: sentence, count: 30).joined(separator: " ")  // 240 words
        let shaped = VoiceShaper(maxWords: 150).shape(text)
        #expect(shaped.hasSuffix("in it. I have more details if you want them."))
        let words = shaped.split(separator: " ").count - "I have more details if you want them.".split(separator: " ").count
        #expect(words == 144)  // 18 whole sentences
    }

    @Test func longAnswersWithoutSentencesAreCutAtTheWordCap() {
        let text = (1...200).map { "w\($0)" }.joined(separator: " ")
        let shaped = VoiceShaper(maxWords: 150).shape(text)
        #expect(shaped.hasPrefix("w1 w2 "))
        #expect(shaped.contains("w150... I have more details"))
        #expect(!shaped.contains("w151"))
    }
}

@Suite struct CircuitBreakerAndSessionTests {
    @Test func breakerOpensAfterThresholdAndClosesOnSuccess() {
        var breaker = CircuitBreaker(threshold: 3, cooldown: .seconds(30))
        let down = JarvisFailure.offline(detail: "refused")
        breaker.recordFailure(down, now: .seconds(0))
        breaker.recordFailure(.busy(detail: "409"), now: .seconds(1))  // busy is not an outage
        breaker.recordFailure(down, now: .seconds(2))
        #expect(breaker.check(now: .seconds(2)) == nil)
        breaker.recordFailure(down, now: .seconds(3))
        #expect(breaker.check(now: .seconds(4)) == down)
        #expect(breaker.check(now: .seconds(33)) == nil)  // half-open: one try
        breaker.recordFailure(down, now: .seconds(33))
        #expect(breaker.check(now: .seconds(34)) == down)  // re-opened at once
        breaker.recordSuccess()
        #expect(breaker.check(now: .seconds(35)) == nil)
        #expect(breaker.consecutiveFailures == 0)
    }

    @Test func sessionExpiresAfterIdleAndOnReset() {
        var tracker = JarvisSessionTracker(idleReset: .seconds(1800))
        tracker.adopt(sessionID: "20260822-111550-9f2c4e6a8b0d1e3f", now: .seconds(0))
        tracker.touch(now: .seconds(1000))
        let expiredEarly = tracker.expireIfIdle(now: .seconds(2799))
        #expect(!expiredEarly)
        #expect(tracker.sessionID == "20260822-111550-9f2c4e6a8b0d1e3f")
        let expired = tracker.expireIfIdle(now: .seconds(2800))
        #expect(expired)
        #expect(tracker.sessionID == nil)
        tracker.adopt(sessionID: "b", previousResponseID: "resp_msg_2", now: .seconds(3000))
        tracker.reset()
        #expect(tracker.sessionID == nil && tracker.previousResponseID == nil)
    }

    @Test func spokenExplanationsAreShortAndNeverEmpty() {
        let failures: [JarvisFailure] = [
            .timeout(detail: ""), .offline(detail: ""), .authenticationFailed(detail: ""),
            .busy(detail: ""), .serverError(detail: ""), .wrongURL(detail: "")
        ]
        for failure in failures {
            #expect(!failure.spokenExplanation.isEmpty)
            #expect(failure.spokenExplanation.split(separator: " ").count < 30)
        }
    }
}

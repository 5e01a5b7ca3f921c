import Basics
import Testing

/// The change times (ms) over one walk of `total` ms, following `nextChange` as the LED thread does.
private func changes(_ p: LEDPattern, total: Int64) -> [Int64] {
    var t: Duration = .zero
    var out: [Int64] = []
    while let next = p.nextChange(after: t), next <= .milliseconds(total) {
        #expect(next > t)
        #expect(p.isLit(after: next) != p.isLit(after: next - .milliseconds(1)))
        out.append(next.nanoseconds / 1_000_000)
        t = next
    }
    return out
}

@Suite struct LEDPatternTests {
    @Test func steadyPatternsNeverChange() {
        #expect(!LEDPattern.off.isLit(after: .zero))
        #expect(!LEDPattern.off.isLit(after: .seconds(100)))
        #expect(LEDPattern.listening.isLit(after: .zero))
        #expect(LEDPattern.listening.isLit(after: .seconds(100)))
        #expect(LEDPattern.off.nextChange(after: .zero) == nil)
        #expect(LEDPattern.listening.nextChange(after: .seconds(7)) == nil)
    }

    @Test func thinkingBlinksFast() {
        let p = LEDPattern.thinking
        #expect(p.isLit(after: .zero))
        #expect(p.isLit(after: .milliseconds(149)))
        #expect(!p.isLit(after: .milliseconds(150)))
        #expect(!p.isLit(after: .milliseconds(299)))
        #expect(p.isLit(after: .milliseconds(300)))
        #expect(changes(p, total: 1000) == [150, 300, 450, 600, 750, 900])
        #expect(p.nextChange(after: .milliseconds(1000)) == .milliseconds(1050))
    }

    @Test func connectingBlinksLikeThinking() {
        #expect(LEDPattern.connecting.steps == LEDPattern.thinking.steps)
    }

    @Test func speakingDipsBriefly() {
        #expect(changes(.speaking, total: 2000) == [800, 1000, 1800, 2000])
    }

    @Test func errorFlashesThreeTimesThenPauses() {
        #expect(changes(.error, total: 3000) == [100, 200, 300, 400, 500, 1500, 1600, 1700, 1800, 1900, 2000, 3000])
        #expect(!LEDPattern.error.isLit(after: .milliseconds(1499)))
    }

    @Test func offlineBlipsEveryTwoSeconds() {
        #expect(changes(.offline, total: 4100) == [100, 2000, 2100, 4000, 4100])
    }

    @Test func everyPatternStartsFromItsFirstStepAndIsPeriodic() {
        for p in LEDPattern.allCases {
            let period = p.steps.reduce(Duration.zero) { $0 + $1.duration }
            #expect(p.isLit(after: .zero) == p.steps[0].lit)
            #expect(p.isLit(after: .milliseconds(-5)) == p.steps[0].lit)
            for ms in stride(from: Int64(0), to: 2000, by: 50) {
                #expect(p.isLit(after: .milliseconds(ms)) == p.isLit(after: .milliseconds(ms) + period * 3), "\(p) at \(ms)")
            }
        }
    }
}

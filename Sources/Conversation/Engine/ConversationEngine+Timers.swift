import AudioCore
import Basics

/// Timers and alarms going off: the timer sound on the earcon channel every few seconds with media ducked,
/// what went off said through the assistant's voice once the sound has played (again every
/// `timerSayInterval`; the sound alone when the API cannot be reached), until a tap, `ctl timer stop` or
/// the ring cap.
public struct TimersRinging: Sendable, Equatable {
    /// Everything ringing, in the order it went off.
    public var rings: [TimerRing]
    /// Those that went off since the last saying: the next one names only them.
    var unsaid: [TimerRing]
    var since: EngineTime
    var chimes = 0
}

extension ConversationEngine {
    mutating func handleTimersRang(_ rings: [TimerRing]) {
        guard !rings.isEmpty else { return }
        if ringing == nil {
            ringing = TimersRinging(rings: rings, unsaid: rings, since: now)
            emit(.duckMedia)
            arm(.ringCap, after: configuration.ringCap)
        } else {
            ringing?.rings += rings
            ringing?.unsaid += rings
        }
        log(.notice, "ringing: \(Self.sentence(for: rings))")
        if state == .idle { emit(.setLED(ledPattern(for: .idle))) }
        emit(.playEarcon(.timer))
        arm(.timerChime, after: configuration.timerChimeInterval)
        arm(.timerSay, after: Self.chimeLength)
    }

    mutating func chimeAgain() {
        guard var current = ringing else { return }
        current.chimes += 1
        ringing = current
        emit(.playEarcon(.timer))
        arm(.timerChime, after: configuration.timerChimeInterval)
        let chime = max(1, configuration.timerChimeInterval.wholeMilliseconds)
        let perSaying = max(1, Int(configuration.timerSayInterval.wholeMilliseconds / chime))
        if current.chimes % perSaying == 0, pendingAnnouncements.isEmpty, !interludeOnly {
            arm(.timerSay, after: Self.chimeLength)
        }
    }

    /// How long the timer sound lasts: the saying waits for it.
    static let chimeLength = Duration.milliseconds(Int(Earcon.timer.durationMs.rounded(.up)))

    /// Names what went off since the last saying, or everything ringing when it is said again.
    mutating func sayWhatRings() {
        guard let current = ringing else { return }
        ringing?.unsaid = []
        handleSay(Self.sentence(for: current.unsaid.isEmpty ? current.rings : current.unsaid), id: Self.deviceNoticeID)
    }

    /// Silences what rings; nothing when nothing does.
    mutating func stopRinging(because reason: String) {
        guard let current = ringing else { return }
        ringing = nil
        cancelTimer(.timerChime)
        cancelTimer(.timerSay)
        cancelTimer(.ringCap)
        log(.info, "stopped ringing \(Self.names(current.rings.map(\.timer))): \(reason)")
        if !state.isInConversation { emit(.unduckMedia) }
        if state == .idle { emit(.setLED(ledPattern(for: .idle))) }
    }

    /// "Time's up: the pasta timer." Late ones say so: "… It went off 12 minutes ago, while the speaker was off."
    static func sentence(for rings: [TimerRing]) -> String {
        var text = "Time's up: \(names(rings.map(\.timer)))."
        if let late = rings.map(\.lateSeconds).max(), late > 0 {
            let minutes = late / 60
            let ago = minutes >= 1 ? "\(minutes) minute\(minutes == 1 ? "" : "s") ago" : "\(late) seconds ago"
            text += " \(rings.count == 1 ? "It" : "They") went off \(ago), while the speaker was off."
        }
        return text
    }

    /// "the pasta timer", "the pasta timer and timer 2", "a, b and c".
    static func names(_ timers: [KitchenTimer]) -> String {
        let names = timers.map(\.spokenName)
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}

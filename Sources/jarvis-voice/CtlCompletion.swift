import Control
import Media

/// What bash offers after `jarvis-voice ctl`: the verbs, then what a verb takes (the built-in station
/// ids after `station`, `on`/`off` after `mute`, the timer subcommands after `timer`).
enum CtlCompletion {
    static func candidates(words: [String], index: Int, prefix: String) -> [String] {
        let before = words.prefix(max(0, min(index, words.count)))
        let verb = before.last { ControlCommand.verbs.contains($0) }
        let candidates: [String]
        switch (verb, before.last) {
        case (nil, _): candidates = ControlCommand.verbs
        case ("station", "station"): candidates = SomaFMCatalog.builtIn.stations.map(\.id)
        case ("mute", "mute"): candidates = ["on", "off"]
        case ("timer", "timer"): candidates = ["list", "add", "cancel", "stop"]
        default: candidates = []
        }
        return candidates.filter { $0.hasPrefix(prefix) }
    }
}

/// The known name a typo was probably meant to be: `capture_chanels` → `capture_channels`.
enum NearMiss {
    /// The candidate within a small edit distance of `word` (two edits, three for long names), the
    /// nearest first; nil when none is that close. Names longer than `maxLength` are not compared
    /// (the distance is quadratic; real keys are short).
    static func closest(to word: String, among candidates: some Sequence<String>, maxLength: Int = 64) -> String? {
        let typed = Array(word.lowercased().utf8)
        guard !typed.isEmpty, typed.count <= maxLength else { return nil }
        let allowed = typed.count >= 10 ? 3 : 2
        var best: (name: String, distance: Int)?
        for candidate in candidates.sorted() {
            let known = Array(candidate.utf8)
            guard known.count <= maxLength, abs(known.count - typed.count) <= allowed else { continue }
            let distance = editDistance(typed, known)
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance, with a swap of two neighbours counting as one edit.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}

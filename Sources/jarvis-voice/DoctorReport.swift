/// The doctor's result: one line per check, a fix for each failure, a summary line.
struct DoctorReport {
    struct Check {
        enum Outcome {
            case passed, failed
            /// The doctor could not look (e.g. a root-only credential, run as a normal user): not a failure.
            case notChecked
        }

        var name: String
        var outcome: Outcome
        var detail: String
        var fix: String?

        var line: String {
            let mark =
                switch outcome {
                case .passed: "✓"
                case .failed: "✗"
                case .notChecked: "–"
                }
            let fixText = fix.map { " (\(outcome == .notChecked ? "to check" : "fix"): \($0))" } ?? ""
            return "\(mark) \(name): \(detail)\(fixText)"
        }
    }

    var checks: [Check] = []

    mutating func pass(_ name: String, _ detail: String) {
        checks.append(Check(name: name, outcome: .passed, detail: detail, fix: nil))
    }

    mutating func fail(_ name: String, _ detail: String, fix: String) {
        checks.append(Check(name: name, outcome: .failed, detail: detail, fix: fix))
    }

    mutating func notChecked(_ name: String, _ detail: String, howToCheck: String) {
        checks.append(Check(name: name, outcome: .notChecked, detail: "not checked (\(detail))", fix: howToCheck))
    }

    var allPassed: Bool { !checks.contains { $0.outcome == .failed } }

    var summary: String {
        let failed = checks.filter { $0.outcome == .failed }.count
        let unchecked = checks.filter { $0.outcome == .notChecked }.count
        let checked = checks.count - unchecked
        let notes = unchecked == 0 ? "" : "; \(unchecked) not checked"
        return (failed == 0 ? "all \(checked) checks passed" : "\(failed) of \(checked) checks failed") + notes
    }
}

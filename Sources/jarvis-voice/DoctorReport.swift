/// The doctor's result: one line per check, a fix for each failure, a summary line.
struct DoctorReport {
    struct Check {
        var name: String
        var passed: Bool
        var detail: String
        var fix: String?

        var line: String {
            let mark = passed ? "✓" : "✗"
            let fixText = fix.map { " (fix: \($0))" } ?? ""
            return "\(mark) \(name): \(detail)\(fixText)"
        }
    }

    var checks: [Check] = []

    mutating func pass(_ name: String, _ detail: String) {
        checks.append(Check(name: name, passed: true, detail: detail, fix: nil))
    }

    mutating func fail(_ name: String, _ detail: String, fix: String) {
        checks.append(Check(name: name, passed: false, detail: detail, fix: fix))
    }

    var allPassed: Bool { checks.allSatisfy(\.passed) }

    var summary: String {
        let failed = checks.filter { !$0.passed }.count
        return failed == 0 ? "all \(checks.count) checks passed" : "\(failed) of \(checks.count) checks failed"
    }
}

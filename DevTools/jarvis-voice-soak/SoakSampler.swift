import Basics
import Glibc
import Realtime
import TestProcess

/// Every `interval`: the service's /proc footprint and its `status` (state, media, ducked), appended to
/// samples.csv as it goes (a run that dies still leaves its samples). Runs beside the scenario.
struct SoakSampler: Sendable {
    let pid: Int32
    let executable: String
    let config: String
    let interval: Double
    let origin: ContinuousClock.Instant
    let path: String

    /// Samples until cancelled or the process is gone; the rows taken.
    func run() async -> [SampleRow] {
        var rows: [SampleRow] = []
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { if fd >= 0 { close(fd) } }
        append(SampleRow.header, to: fd)
        var next = 0.0
        while !Task.isCancelled {
            let at = SoakClock.seconds(ContinuousClock.now - origin)
            if at < next {
                try? await Task.sleep(for: .milliseconds(Int((next - at) * 1_000)))
                continue
            }
            next += interval
            guard let process = ProcessSample.read(pid: pid) else { break }
            let status = await status()
            let row = SampleRow(
                at: at, process: process, state: status?["state"]?.stringValue ?? "?",
                mediaState: status?["media"]?["state"]?.stringValue ?? "?", ducked: SoakRig.ducked(status))
            rows.append(row)
            append(row.csv, to: fd)
        }
        return rows
    }

    private func status() async -> JSONValue? {
        guard let result = try? await ChildProcess.run([executable, "ctl", "--config", config, "--timeout", "5", "status"], timeout: .seconds(15)),
            result.status == 0
        else { return nil }
        return JSONValue.parse(result.stdout)
    }

    private func append(_ line: String, to fd: Int32) {
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

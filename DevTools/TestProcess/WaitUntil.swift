/// How long a test waits for something that must happen before it calls it hung: a hang guard, never a
/// measure of speed. Under the full suite on 2 cores, every test starts at once and the cores stay busy
/// for a minute; a loopback turn that takes 0.2 s alone then takes 25-45 s, and a 30 s wait failed a CI run.
public let hangTimeout: Duration = .seconds(120)

/// Waits for a condition the test cannot be told about (a status field, a log line, a counter in a
/// stand-in): checks it every `interval` until it holds or `timeout` passes, and checks once more at
/// the end. Returns whether it held. The one poll loop the tests share: a deadline generous enough for a
/// loaded 2-core machine (`hangTimeout`), a short interval so a fast machine does not wait.
public func waitUntil(
    timeout: Duration = hangTimeout, interval: Duration = .milliseconds(5), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// Waits for `value` to produce a result (a log line that matched, a file that appeared); nil after `timeout`.
public func waitFor<T>(
    timeout: Duration = hangTimeout, interval: Duration = .milliseconds(5), _ value: () async throws -> T?
) async rethrows -> T? {
    var result: T?
    _ = try await waitUntil(timeout: timeout, interval: interval) {
        result = try await value()
        return result != nil
    }
    return result
}

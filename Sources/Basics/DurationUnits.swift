extension Duration {
    /// Whole nanoseconds (truncated), saturating far beyond any timer this code arms.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? (seconds < 0 ? Int64.min / 2 : Int64.max / 2)
            : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole milliseconds (truncated toward zero).
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Seconds as a floating-point number.
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

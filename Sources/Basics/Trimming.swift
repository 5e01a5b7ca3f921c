extension StringProtocol {
    /// Without leading white space or byte-order mark and trailing white space.
    package func trimmed() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace || first == "\u{FEFF}" { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}

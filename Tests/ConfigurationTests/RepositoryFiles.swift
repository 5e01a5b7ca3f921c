import TestProcess

/// Reads a text file of the repository (tests run from the package root or find it via #filePath).
func repositoryFile(_ relativePath: String, from filePath: String = #filePath) -> String? {
    // #filePath = <root>/Tests/ConfigurationTests/<file>.swift
    var root = filePath
    for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
    return TestFiles.readText(root + "/" + relativePath)
}

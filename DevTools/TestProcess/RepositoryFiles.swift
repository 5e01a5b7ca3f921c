/// Reads a text file of the repository, found from the calling test's own path (`#filePath` of a file in
/// `<root>/Tests/<Target>/`), so it works whatever the working directory.
public func repositoryFile(_ relativePath: String, from filePath: String = #filePath) -> String? {
    var root = filePath
    for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
    return TestFiles.readText(root + "/" + relativePath)
}

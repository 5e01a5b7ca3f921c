/// In-scope XML namespace declarations with O(1) lookup and O(declarations) push/pop per element,
/// so resolving a name costs the same at any depth (a naive walk of the scope stack per tag is
/// quadratic in the nesting depth).
struct XMLNamespaces {
    /// For each prefix ("" for the default namespace), the URIs declared for it, innermost last.
    private var bindings: [String: [String]] = ["xml": ["http://www.w3.org/XML/1998/namespace"]]
    /// For each open element, the prefixes it declared (to undo at its end).
    private var declared: [[String]] = []

    var depth: Int { declared.count }

    mutating func push(_ attributes: [XMLAttribute]) {
        var prefixes: [String] = []
        for attribute in attributes {
            let prefix: String
            if attribute.name == "xmlns" {
                prefix = ""
            } else if attribute.name.hasPrefix("xmlns:") {
                prefix = String(attribute.name.dropFirst(6))
            } else {
                continue
            }
            bindings[prefix, default: []].append(attribute.value)
            prefixes.append(prefix)
        }
        declared.append(prefixes)
    }

    mutating func pop() {
        guard let prefixes = declared.popLast() else { return }
        for prefix in prefixes {
            bindings[prefix]?.removeLast()
            if bindings[prefix]?.isEmpty == true { bindings[prefix] = nil }
        }
    }

    /// (namespace URI, local name). Unprefixed attributes have no namespace; an unknown prefix stands for
    /// itself (lenient: real feeds forget declarations).
    func resolve(_ qualified: String, attribute: Bool = false) -> (uri: String, local: String) {
        if let colon = qualified.firstIndex(of: ":") {
            let prefix = String(qualified[..<colon])
            let local = String(qualified[qualified.index(after: colon)...])
            return (bindings[prefix]?.last ?? prefix, local)
        }
        if attribute { return ("", qualified) }
        return (bindings[""]?.last ?? "", qualified)
    }
}

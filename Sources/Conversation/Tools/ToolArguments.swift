import Basics
import Realtime

/// Arguments of one call, validated against the tool's parameters.
public struct ToolArguments: Sendable, Equatable {
    public let values: [String: JSONValue]

    public init(values: [String: JSONValue]) { self.values = values }

    public func string(_ name: String) -> String? { values[name]?.stringValue }
    public func number(_ name: String) -> Double? { values[name]?.numberValue }
    public func integer(_ name: String) -> Int? { values[name]?.numberValue.map { Int($0) } }
    public func bool(_ name: String) -> Bool? {
        if case .bool(let value) = values[name] { return value }
        return nil
    }

    /// Parses the model's JSON argument string and checks it against `definition`. Unknown extra keys are
    /// ignored (the model sometimes adds them); missing, mistyped or out-of-range values are errors.
    public static func validate(_ json: String, for definition: ToolDefinition) -> Result<ToolArguments, ToolArgumentError> {
        let trimmed = json.trimmed()
        let text = trimmed.isEmpty ? "{}" : trimmed
        guard let parsed = JSONValue.parse(text) else { return .failure(.notJSON) }
        guard case .object(let object) = parsed else { return .failure(.notAnObject) }
        var values: [String: JSONValue] = [:]
        for parameter in definition.parameters {
            guard let value = object[parameter.name], value != .null else {
                if parameter.isRequired { return .failure(.missing(parameter.name)) }
                continue
            }
            switch (parameter.kind, value) {
            case (.string(let allowed), .string(let string)):
                if let allowed, !allowed.contains(string) { return .failure(.notAllowed(parameter.name, string, allowed)) }
                if parameter.isRequired, string.trimmed().isEmpty { return .failure(.empty(parameter.name)) }
            case (.number(let minimum, let maximum), .number(let number)):
                if let minimum, number < minimum { return .failure(.outOfRange(parameter.name, number)) }
                if let maximum, number > maximum { return .failure(.outOfRange(parameter.name, number)) }
            case (.integer(let minimum, let maximum), .number(let number)):
                guard number.rounded() == number else { return .failure(.wrongType(parameter.name, expected: "integer")) }
                if let minimum, number < Double(minimum) { return .failure(.outOfRange(parameter.name, number)) }
                if let maximum, number > Double(maximum) { return .failure(.outOfRange(parameter.name, number)) }
            case (.boolean, .bool): break
            case (.string, _): return .failure(.wrongType(parameter.name, expected: "string"))
            case (.number, _): return .failure(.wrongType(parameter.name, expected: "number"))
            case (.integer, _): return .failure(.wrongType(parameter.name, expected: "integer"))
            case (.boolean, _): return .failure(.wrongType(parameter.name, expected: "boolean"))
            }
            values[parameter.name] = value
        }
        return .success(ToolArguments(values: values))
    }
}

public enum ToolArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case notAnObject
    case missing(String)
    case empty(String)
    case wrongType(String, expected: String)
    case outOfRange(String, Double)
    case notAllowed(String, String, [String])

    public var description: String {
        switch self {
        case .notJSON: "the arguments are not valid JSON"
        case .notAnObject: "the arguments must be a JSON object"
        case .missing(let name): "the required argument \"\(name)\" is missing"
        case .empty(let name): "the argument \"\(name)\" is empty"
        case .wrongType(let name, let expected): "the argument \"\(name)\" must be a \(expected)"
        case .outOfRange(let name, let value): "the argument \"\(name)\" is out of range (\(value))"
        case .notAllowed(let name, let value, let allowed):
            "the argument \"\(name)\" must be one of \(allowed.joined(separator: ", ")), not \"\(value)\""
        }
    }
}

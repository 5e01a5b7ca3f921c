import Basics
import Realtime

/// A tool the Realtime model may call: name, description and typed parameters (rendered as JSON Schema),
/// what the system prompt says about it, and whether it answers at once. `ToolRegistry` builds the
/// session's tools, instructions and quiet list from these, so a tool is described in one place.
public struct ToolDefinition: Sendable, Equatable {
    public var name: String
    public var description: String
    public var parameters: [ToolParameter]
    /// A section of the system prompt about when and how to use the tool, or nil for none
    /// (`ToolRegistry.instructions` lists quick tools by their description anyway).
    public var prompt: String?
    /// The prompt section asking for a spoken acknowledgement before the call (a filler that covers the
    /// wait), or nil. Only for models without preambles: a reasoning model speaks its own, and told to say a
    /// filler as well, the owner would hear two.
    public var acknowledgement: String?
    /// Answers at once on this device (no Jarvis, no network wait): calling only such tools plays no
    /// "thinking" earcon, and the prompt lists it among the quick local tools.
    public var answersInstantly: Bool

    public init(
        name: String, description: String, parameters: [ToolParameter], prompt: String? = nil, acknowledgement: String? = nil,
        answersInstantly: Bool = false
    ) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.prompt = prompt
        self.acknowledgement = acknowledgement
        self.answersInstantly = answersInstantly
    }

    /// The JSON Schema of the arguments object.
    public var schema: JSONValue {
        var properties: [String: JSONValue] = [:]
        for parameter in parameters { properties[parameter.name] = parameter.schema }
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties)]
        let required = parameters.filter(\.isRequired).map { JSONValue.string($0.name) }
        if !required.isEmpty { schema["required"] = .array(required) }
        return .object(schema)
    }

    /// The wire form for `session.update.session.tools`.
    public var functionTool: FunctionTool {
        FunctionTool(name: name, description: description, parameters: schema)
    }
}

public struct ToolParameter: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `allowed`: an enum of accepted values, or nil for any string.
        case string(allowed: [String]?)
        case number(minimum: Double?, maximum: Double?)
        case integer(minimum: Int?, maximum: Int?)
        case boolean
    }

    public var name: String
    public var description: String
    public var kind: Kind
    public var isRequired: Bool

    public init(name: String, description: String, kind: Kind, isRequired: Bool = true) {
        self.name = name
        self.description = description
        self.kind = kind
        self.isRequired = isRequired
    }

    public static func string(_ name: String, _ description: String, allowed: [String]? = nil, required: Bool = true) -> ToolParameter {
        ToolParameter(name: name, description: description, kind: .string(allowed: allowed), isRequired: required)
    }

    public static func number(_ name: String, _ description: String, minimum: Double? = nil, maximum: Double? = nil, required: Bool = true)
        -> ToolParameter
    {
        ToolParameter(name: name, description: description, kind: .number(minimum: minimum, maximum: maximum), isRequired: required)
    }

    public static func integer(_ name: String, _ description: String, minimum: Int? = nil, maximum: Int? = nil, required: Bool = true)
        -> ToolParameter
    {
        ToolParameter(name: name, description: description, kind: .integer(minimum: minimum, maximum: maximum), isRequired: required)
    }

    var schema: JSONValue {
        var schema: [String: JSONValue] = [:]
        switch kind {
        case .string(let allowed):
            schema["type"] = "string"
            if let allowed { schema["enum"] = .array(allowed.map(JSONValue.string)) }
        case .number(let minimum, let maximum):
            schema["type"] = "number"
            if let minimum { schema["minimum"] = .number(minimum) }
            if let maximum { schema["maximum"] = .number(maximum) }
        case .integer(let minimum, let maximum):
            schema["type"] = "integer"
            if let minimum { schema["minimum"] = .number(Double(minimum)) }
            if let maximum { schema["maximum"] = .number(Double(maximum)) }
        case .boolean:
            schema["type"] = "boolean"
        }
        schema["description"] = .string(description)
        return .object(schema)
    }
}

/// The `params` of a JSON-RPC 2.0 request or notification: by position or by name.
public enum JSONRPCParams: Sendable, Hashable {
    /// Parameters by position (a JSON array).
    case positional([JSONValue])
    /// Parameters by name (a JSON object).
    case named(JSONObject)

    /// The parameters as a JSON value.
    public var jsonValue: JSONValue {
        switch self {
        case .positional(let values): .array(values)
        case .named(let members): .object(members)
        }
    }

    /// Reads parameters from a JSON value.
    ///
    /// - Throws: ``WireError/Code/invalidJSONRPC`` unless the value is an array or an object.
    public init(_ value: JSONValue) throws(WireError) {
        switch value {
        case .array(let values):
            self = .positional(values)
        case .object(let members):
            self = .named(members)
        default:
            throw JSONRPCCodec.invalid("params must be an array or an object, got \(value.kindName)", at: "/params")
        }
    }
}

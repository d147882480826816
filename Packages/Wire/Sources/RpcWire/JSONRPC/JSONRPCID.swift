/// The `id` of a JSON-RPC 2.0 request and of its response.
///
/// The specification allows a number, a string or `null`. Numbers must be integers here: a
/// fractional id is rejected as ``WireError/Code/invalidJSONRPC``, since the specification
/// advises against them and they cannot be matched reliably.
public enum JSONRPCID: Sendable, Hashable {
    /// An integer id.
    case number(Int64)
    /// A string id.
    case string(String)
    /// The `null` id, used by responses to requests whose id could not be read.
    case null

    /// The id as a JSON value.
    public var jsonValue: JSONValue {
        switch self {
        case .number(let number): .integer(number)
        case .string(let string): .string(string)
        case .null: .null
        }
    }

    /// Reads an id from a JSON value.
    ///
    /// - Throws: ``WireError/Code/invalidJSONRPC`` for anything but an integer, a string or `null`.
    public init(_ value: JSONValue) throws(WireError) {
        switch value {
        case .integer(let number):
            self = .number(number)
        case .double(let number):
            guard let exact = Int64(exactly: number) else {
                throw JSONRPCCodec.invalid("id must be an integer, a string or null, got \(number)", at: "/id")
            }
            self = .number(exact)
        case .string(let string):
            self = .string(string)
        case .null:
            self = .null
        default:
            throw JSONRPCCodec.invalid("id must be an integer, a string or null, got \(value.kindName)", at: "/id")
        }
    }
}

extension JSONRPCID: ExpressibleByIntegerLiteral {
    /// Creates a numeric id.
    public init(integerLiteral value: Int64) { self = .number(value) }
}

extension JSONRPCID: ExpressibleByStringLiteral {
    /// Creates a string id.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONRPCID: CustomStringConvertible {
    /// The id as it appears in JSON.
    public var description: String {
        switch self {
        case .number(let number): String(number)
        case .string(let string): "\"\(string)\""
        case .null: "null"
        }
    }
}

/// A dynamically typed value as it travels in a call: JSON's data model.
///
/// ```swift
/// let params: [RpcValue] = [.string("alice"), .int(30), RpcValue.from(["admin": true])]
/// let name = (try await client.call("users.get", params: [.string("1")])).asAny
/// ```
///
/// It decodes from any answer, so `let _: RpcValue = try await client.api.todos.delete(id: id)`
/// awaits a call whose result does not matter.
public enum RpcValue: Sendable, Equatable, Codable {
    /// `null` (also what `undefined` reads as).
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([RpcValue])
    /// An object.
    case object([String: RpcValue])

    /// Converts a Swift value: `nil`, `Bool`, integers, floating-point numbers, `String`,
    /// arrays and `[String: Any]` dictionaries of those, an `RpcValue`, or any `Encodable`
    /// value (through its JSON form). Anything else becomes its description as a string.
    public static func from(_ any: Any?) -> RpcValue {
        ValueConversion.value(from: any)
    }

    /// The value as plain Swift: `nil`, `Bool`, `Int`, `Double`, `String`, `[Any?]` or
    /// `[String: Any?]`.
    public var asAny: Any? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map(\.asAny)
        case .object(let members): members.mapValues(\.asAny)
        }
    }

    /// Writes the value as the JSON value it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }

    /// Reads any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let values = try? container.decode([RpcValue].self) {
            self = .array(values)
        } else {
            self = .object(try container.decode([String: RpcValue].self))
        }
    }
}

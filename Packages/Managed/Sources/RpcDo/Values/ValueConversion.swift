internal import RpcWire

/// Conversions between ``RpcValue``, plain Swift values and the Wire layer's `JSONValue`.
enum ValueConversion {
    /// The most nested arrays and objects ``value(from:)`` follows before giving up on a value.
    static let maxDepth = 256

    static func value(from any: Any?, depth: Int = 0) -> RpcValue {
        guard let any, depth <= maxDepth else { return .null }
        switch any {
        case let value as RpcValue: return value
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(value)
        case let value as Int8: return .int(Int(value))
        case let value as Int16: return .int(Int(value))
        case let value as Int32: return .int(Int(value))
        // Wider than a 32-bit `Int` (watchOS on arm64_32): what does not fit becomes a double,
        // as an `Int64` from JSON does in ``value(json:)``.
        case let value as Int64: return integer(value)
        case let value as UInt8: return .int(Int(value))
        case let value as UInt16: return .int(Int(value))
        case let value as UInt32: return integer(value)
        case let value as UInt: return integer(value)
        case let value as UInt64: return integer(value)
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let values as [Any?]: return .array(values.map { self.value(from: $0, depth: depth + 1) })
        case let values as [Any]: return .array(values.map { self.value(from: $0, depth: depth + 1) })
        case let members as [String: Any?]: return .object(members.mapValues { self.value(from: $0, depth: depth + 1) })
        case let members as [String: Any]: return .object(members.mapValues { self.value(from: $0, depth: depth + 1) })
        case let encodable as any Encodable:
            if let json = try? JSONValueEncoder().encode(encodable) { return value(json: json) }
            return .string(String(describing: any))
        default:
            return .string(String(describing: any))
        }
    }

    /// `value` as ``RpcValue/int(_:)`` when it fits an `Int`, otherwise as the nearest double.
    static func integer<Integer: BinaryInteger>(_ value: Integer) -> RpcValue {
        Int(exactly: value).map(RpcValue.int) ?? .double(Double(value))
    }

    static func value(json: JSONValue) -> RpcValue {
        switch json {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return integer(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .array(let values): return .array(values.map(value(json:)))
        case .object(let members):
            var result: [String: RpcValue] = [:]
            for (key, member) in members { result[key] = value(json: member) }
            return .object(result)
        }
    }

    static func json(_ value: RpcValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .integer(Int64(value))
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .array(let values): return .array(values.map(json))
        case .object(let members):
            return .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) }))
        }
    }

    /// The value as JSON text, for descriptions (`"123"`, `[1,2]`).
    static func text(_ value: RpcValue) -> String {
        guard let bytes = try? json(value).serialized(canonical: true) else { return "?" }
        return String(decoding: bytes, as: UTF8.self)
    }
}

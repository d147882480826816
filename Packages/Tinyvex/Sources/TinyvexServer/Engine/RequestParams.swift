import RpcWire

/// Typed access to a request's named params; a missing or mistyped member is `-32602`.
struct RequestParams {
    let members: JSONObject

    init(_ params: JSONRPCParams?) throws(JSONRPCErrorObject) {
        switch params {
        case nil: members = [:]
        case .named(let members): self.members = members
        case .positional: throw .invalidParams("params must be an object")
        }
    }

    func string(_ key: String) throws(JSONRPCErrorObject) -> String {
        guard case .string(let value)? = members[key] else {
            throw .invalidParams("\(key) must be a string")
        }
        return value
    }

    /// A string member of at most `maxBytes` UTF-8 bytes.
    func string(_ key: String, maxBytes: Int) throws(JSONRPCErrorObject) -> String {
        let value = try string(key)
        guard value.utf8.count <= maxBytes else {
            throw .invalidParams("\(key) is longer than \(maxBytes) bytes")
        }
        return value
    }

    /// An optional string member of at most `maxBytes` UTF-8 bytes.
    func optionalString(_ key: String, maxBytes: Int) throws(JSONRPCErrorObject) -> String? {
        guard let value = try optionalString(key) else { return nil }
        guard value.utf8.count <= maxBytes else {
            throw .invalidParams("\(key) is longer than \(maxBytes) bytes")
        }
        return value
    }

    func optionalString(_ key: String) throws(JSONRPCErrorObject) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .invalidParams("\(key) must be a string or null")
        }
    }

    func optionalInteger(_ key: String) throws(JSONRPCErrorObject) -> Int64? {
        switch members[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return value
        default: throw .invalidParams("\(key) must be an integer")
        }
    }

    func object(_ key: String) throws(JSONRPCErrorObject) -> JSONValue {
        switch members[key] {
        case nil, .null?: return .object([:])
        case .object(let value)?: return .object(value)
        default: throw .invalidParams("\(key) must be an object")
        }
    }

    /// Any JSON value; `{}` when absent.
    func value(_ key: String) -> JSONValue {
        members[key] ?? .object([:])
    }
}

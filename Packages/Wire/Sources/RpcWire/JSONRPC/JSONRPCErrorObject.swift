/// The `error` member of a failed JSON-RPC 2.0 response.
///
/// Carries an integer ``code`` (see the standard codes below), a short ``message`` and optional
/// ``data``. It is also an `Error`, so a handler can throw one to answer with it.
public struct JSONRPCErrorObject: Error, Sendable, Hashable {
    /// The error code. Codes from -32768 to -32000 are reserved by the specification.
    public var code: Int
    /// A short description of the error.
    public var message: String
    /// Additional information defined by the server.
    public var data: JSONValue?

    /// Creates an error object.
    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// -32700: the server received text that is not JSON.
    public static let parseErrorCode = -32700
    /// -32600: the JSON is not a valid request object.
    public static let invalidRequestCode = -32600
    /// -32601: the method does not exist or is not available.
    public static let methodNotFoundCode = -32601
    /// -32602: invalid method parameters.
    public static let invalidParamsCode = -32602
    /// -32603: internal JSON-RPC error.
    public static let internalErrorCode = -32603
    /// -32099 to -32000: reserved for implementation-defined server errors.
    public static let serverErrorCodes: ClosedRange<Int> = -32099 ... -32000

    /// A standard parse error, with the parser's reason as `data`.
    public static func parseError(_ reason: String? = nil) -> JSONRPCErrorObject {
        JSONRPCErrorObject(code: parseErrorCode, message: "Parse error", data: reason.map(JSONValue.string))
    }

    /// A standard invalid-request error, with the reason as `data`.
    public static func invalidRequest(_ reason: String? = nil) -> JSONRPCErrorObject {
        JSONRPCErrorObject(code: invalidRequestCode, message: "Invalid Request", data: reason.map(JSONValue.string))
    }

    /// A standard method-not-found error naming the method.
    public static func methodNotFound(_ method: String) -> JSONRPCErrorObject {
        JSONRPCErrorObject(code: methodNotFoundCode, message: "Method not found", data: .string(method))
    }

    /// A standard invalid-params error, with the reason as `data`.
    public static func invalidParams(_ reason: String? = nil) -> JSONRPCErrorObject {
        JSONRPCErrorObject(code: invalidParamsCode, message: "Invalid params", data: reason.map(JSONValue.string))
    }

    /// A standard internal error, with the reason as `data`.
    public static func internalError(_ reason: String? = nil) -> JSONRPCErrorObject {
        JSONRPCErrorObject(code: internalErrorCode, message: "Internal error", data: reason.map(JSONValue.string))
    }

    /// The error object as JSON: `{"code":…,"message":…,"data":…}`.
    public var jsonValue: JSONValue {
        var members = JSONObject(minimumCapacity: 3)
        members.updateValue(.integer(Int64(code)), forKey: "code")
        members.updateValue(.string(message), forKey: "message")
        if let data {
            members.updateValue(data, forKey: "data")
        }
        return .object(members)
    }

    /// Reads an error object from JSON.
    ///
    /// - Throws: ``WireError/Code/invalidJSONRPC`` when `code` is not an integer or `message` not a string.
    public init(_ value: JSONValue) throws(WireError) {
        guard case .object(let members) = value else {
            throw JSONRPCCodec.invalid("error must be an object, got \(value.kindName)", at: "/error")
        }
        guard let code = members["code"]?.intValue else {
            throw JSONRPCCodec.invalid("error.code must be an integer", at: "/error/code")
        }
        guard let message = members["message"]?.stringValue else {
            throw JSONRPCCodec.invalid("error.message must be a string", at: "/error/message")
        }
        self.init(code: code, message: message, data: members["data"])
    }
}

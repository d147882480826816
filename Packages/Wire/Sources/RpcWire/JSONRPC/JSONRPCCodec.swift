/// Reads and writes JSON-RPC 2.0 messages.
///
/// Decoding is strict: `"jsonrpc"` must be exactly `"2.0"`, a request needs a string `method`,
/// `params` must be an array or an object, a response needs an `id` and exactly one of
/// `result` and `error`, and a batch must not be empty. Every violation is a ``WireError``
/// with code ``WireError/Code/invalidJSONRPC`` and a ``WireError/path`` (a JSON Pointer) naming
/// the offending member.
///
/// A server that must answer each element of a batch on its own, as the specification asks,
/// uses ``decodeEach(_:)-(JSONValue)``, which keeps the valid elements and reports the invalid
/// ones separately; ``errorResponse(for:id:)`` turns any decoding failure into the standard
/// error response.
///
/// Members are written in a fixed order: `jsonrpc`, `id`, then `method` and `params`, or
/// `result` or `error`.
public struct JSONRPCCodec: Sendable {
    /// The limits applied when decoding text.
    public var parserConfiguration: JSONParser.Configuration

    /// Creates a codec.
    ///
    /// - Parameter parserConfiguration: Limits for reading text (depth, size, duplicate keys).
    public init(parserConfiguration: JSONParser.Configuration = .default) {
        self.parserConfiguration = parserConfiguration
    }

    // MARK: Decoding

    /// Decodes a single message or a batch from JSON text.
    ///
    /// - Throws: The parser's ``WireError`` for text that is not JSON, otherwise
    ///   ``WireError/Code/invalidJSONRPC``.
    public func decode(_ bytes: [UInt8]) throws(WireError) -> JSONRPCPacket {
        try decode(JSONParser(configuration: parserConfiguration).parse(bytes))
    }

    /// Decodes a single message or a batch from a JSON value.
    ///
    /// - Throws: ``WireError/Code/invalidJSONRPC`` naming the first invalid member.
    public func decode(_ value: JSONValue) throws(WireError) -> JSONRPCPacket {
        switch value {
        case .object:
            return .single(try decodeMessage(value, pointer: ""))
        case .array(let elements):
            guard !elements.isEmpty else {
                throw Self.invalid("a batch must not be empty", at: "")
            }
            var messages: [JSONRPCMessage] = []
            messages.reserveCapacity(elements.count)
            for (position, element) in elements.enumerated() {
                messages.append(try decodeMessage(element, pointer: "/\(position)"))
            }
            return .batch(messages)
        default:
            throw Self.invalid("a message must be an object or a batch array, got \(value.kindName)", at: "")
        }
    }

    /// Decodes every element of a message or batch on its own.
    ///
    /// Returns one result per element (one for a single message), so a server can answer the
    /// valid calls of a batch and reply with an error for each invalid one.
    ///
    /// - Throws: ``WireError/Code/invalidJSONRPC`` only when the value is neither an object nor
    ///   a non-empty array.
    public func decodeEach(_ value: JSONValue) throws(WireError) -> [Result<JSONRPCMessage, WireError>] {
        switch value {
        case .object:
            return [Self.result { () throws(WireError) in try decodeMessage(value, pointer: "") }]
        case .array(let elements):
            guard !elements.isEmpty else {
                throw Self.invalid("a batch must not be empty", at: "")
            }
            return elements.enumerated().map { position, element in
                Self.result { () throws(WireError) in try decodeMessage(element, pointer: "/\(position)") }
            }
        default:
            throw Self.invalid("a message must be an object or a batch array, got \(value.kindName)", at: "")
        }
    }

    /// Decodes one message from a JSON object.
    ///
    /// - Parameters:
    ///   - value: The message object.
    ///   - pointer: The JSON Pointer of the object inside its transmission, used in errors.
    /// - Throws: ``WireError/Code/invalidJSONRPC``.
    public func decodeMessage(_ value: JSONValue, pointer: String = "") throws(WireError) -> JSONRPCMessage {
        guard case .object(let members) = value else {
            throw Self.invalid("a message must be an object, got \(value.kindName)", at: pointer)
        }
        guard members["jsonrpc"] == .string("2.0") else {
            throw Self.invalid("\"jsonrpc\" must be exactly \"2.0\"", at: pointer + "/jsonrpc")
        }
        if let methodValue = members["method"] {
            guard case .string(let method) = methodValue else {
                throw Self.invalid("method must be a string, got \(methodValue.kindName)", at: pointer + "/method")
            }
            if members["result"] != nil || members["error"] != nil {
                throw Self.invalid("a request must not carry result or error", at: pointer)
            }
            let params = try members["params"].map { (params) throws(WireError) in
                try Self.rebase(pointer) { () throws(WireError) in try JSONRPCParams(params) }
            }
            guard let idValue = members["id"] else {
                return .notification(method: method, params: params)
            }
            let id = try Self.rebase(pointer) { () throws(WireError) in try JSONRPCID(idValue) }
            return .request(id: id, method: method, params: params)
        }
        guard let idValue = members["id"] else {
            throw Self.invalid("a message needs a method (request) or an id (response)", at: pointer)
        }
        let id = try Self.rebase(pointer) { () throws(WireError) in try JSONRPCID(idValue) }
        switch (members["result"], members["error"]) {
        case (let result?, nil):
            return .success(id: id, result: result)
        case (nil, let error?):
            let errorObject = try Self.rebase(pointer) { () throws(WireError) in try JSONRPCErrorObject(error) }
            return .failure(id: id, error: errorObject)
        case (.some, .some):
            throw Self.invalid("a response must not carry both result and error", at: pointer)
        case (nil, nil):
            throw Self.invalid("a response needs result or error", at: pointer)
        }
    }

    // MARK: Encoding

    /// Encodes a single message or a batch as compact JSON text.
    ///
    /// - Throws: ``WireError/Code/nonFiniteNumber`` when a value holds a non-finite double.
    public func encode(_ packet: JSONRPCPacket) throws(WireError) -> [UInt8] {
        try JSONSerializer().serialize(jsonValue(packet))
    }

    /// Encodes one message as compact JSON text.
    ///
    /// - Throws: ``WireError/Code/nonFiniteNumber`` when a value holds a non-finite double.
    public func encode(_ message: JSONRPCMessage) throws(WireError) -> [UInt8] {
        try JSONSerializer().serialize(jsonValue(message))
    }

    /// A single message or a batch as a JSON value.
    public func jsonValue(_ packet: JSONRPCPacket) -> JSONValue {
        switch packet {
        case .single(let message): jsonValue(message)
        case .batch(let messages): .array(messages.map(jsonValue))
        }
    }

    /// One message as a JSON value.
    public func jsonValue(_ message: JSONRPCMessage) -> JSONValue {
        var members = JSONObject(minimumCapacity: 4)
        members.updateValue("2.0", forKey: "jsonrpc")
        switch message {
        case .request(let id, let method, let params):
            members.updateValue(id.jsonValue, forKey: "id")
            members.updateValue(.string(method), forKey: "method")
            if let params {
                members.updateValue(params.jsonValue, forKey: "params")
            }
        case .notification(let method, let params):
            members.updateValue(.string(method), forKey: "method")
            if let params {
                members.updateValue(params.jsonValue, forKey: "params")
            }
        case .success(let id, let result):
            members.updateValue(id.jsonValue, forKey: "id")
            members.updateValue(result, forKey: "result")
        case .failure(let id, let error):
            members.updateValue(id.jsonValue, forKey: "id")
            members.updateValue(error.jsonValue, forKey: "error")
        }
        return .object(members)
    }

    /// The standard error response for a message that could not be decoded.
    ///
    /// Text that is not JSON gives a parse error (-32700); anything else an invalid-request error
    /// (-32600). The reason goes into the error's `data`.
    ///
    /// - Parameters:
    ///   - error: Why decoding failed.
    ///   - id: The request's id when it could be read, otherwise `null`.
    public func errorResponse(for error: WireError, id: JSONRPCID = .null) -> JSONRPCMessage {
        if error.code == .invalidJSONRPC {
            return .failure(id: id, error: .invalidRequest(error.description))
        }
        return .failure(id: id, error: .parseError(error.description))
    }

    // MARK: Helpers

    /// An ``WireError/Code/invalidJSONRPC`` error at `pointer`.
    static func invalid(_ message: String, at pointer: String) -> WireError {
        WireError(code: .invalidJSONRPC, message: message, path: pointer.isEmpty ? "/" : pointer)
    }

    /// Runs `body` and prefixes the path of any error it throws with `pointer`.
    private static func rebase<T>(_ pointer: String = "", _ body: () throws(WireError) -> T) throws(WireError) -> T {
        do {
            return try body()
        } catch {
            var rebased = error
            if let path = error.path, !pointer.isEmpty {
                rebased.path = pointer + path
            }
            throw rebased
        }
    }

    private static func result<T>(_ body: () throws(WireError) -> T) -> Result<T, WireError> {
        do {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }
}

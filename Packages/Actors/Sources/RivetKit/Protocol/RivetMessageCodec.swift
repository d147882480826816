public import RpcWire

/// Reads and writes RivetKit's JSON frames and HTTP action bodies.
///
/// Every realtime frame is an envelope `{"body":{"tag":…,"val":{…}}}`. Ids travel as
/// `["$BigInt","n"]` (a plain integer is accepted when reading), user values (action
/// arguments and outputs, event arguments, error metadata) in the JSON compat encoding of
/// ``RivetJSONCompat``, and an `Error` always carries `actionId`, `null` for a connection-level
/// error, since RivetKit's client drops an `Error` frame without it.
///
/// ```swift
/// let frame = RivetMessageCodec.encode(ServerMessage.actionResponse(id: 0, output: 10))
/// // {"body":{"tag":"ActionResponse","val":{"id":["$BigInt","0"],"output":10}}}
/// ```
public enum RivetMessageCodec {
    // MARK: Realtime frames

    /// The frame for a client message.
    public static func encode(_ message: ClientMessage) -> String {
        String(decoding: frame(message), as: UTF8.self)
    }

    /// The frame for a client message, as the UTF-8 bytes of a text message.
    public static func frame(_ message: ClientMessage) -> [UInt8] {
        switch message {
        case .actionRequest(let id, let name, let args):
            var writer = FrameWriter(tag: "ActionRequest")
            writer.key("id", first: true)
            writer.bigInt(id)
            writer.key("name")
            writer.writer.writeString(name)
            writer.key("args")
            writer.values(args)
            return writer.finish()
        case .subscriptionRequest(let eventName, let subscribe):
            return Array(envelope("SubscriptionRequest", [("eventName", .string(eventName)), ("subscribe", .bool(subscribe))]).utf8)
        }
    }

    /// The frame for a server message.
    public static func encode(_ message: ServerMessage) -> String {
        String(decoding: frame(message), as: UTF8.self)
    }

    /// The frame for a server message, as the UTF-8 bytes of a text message.
    public static func frame(_ message: ServerMessage) -> [UInt8] {
        switch message {
        case .initialize(let actorId, let connectionId):
            return Array(envelope("Init", [("actorId", .string(actorId)), ("connectionId", .string(connectionId))]).utf8)
        case .actionResponse(let id, let output):
            var writer = FrameWriter(tag: "ActionResponse")
            writer.key("id", first: true)
            writer.bigInt(id)
            writer.key("output")
            writer.value(output)
            return writer.finish()
        case .event(let name, let args):
            var writer = FrameWriter(tag: "Event")
            writer.key("name", first: true)
            writer.writer.writeString(name)
            writer.key("args")
            writer.values(args)
            return writer.finish()
        case .error(let error, let actionId):
            var members = errorMembers(error)
            members.append(("actionId", actionId.map(RivetJSONCompat.bigInt) ?? .null))
            return Array(envelope("Error", members).utf8)
        }
    }

    /// The client message in a frame.
    ///
    /// - Throws: ``ActorError`` `message.malformed` for text that is not JSON, an envelope of
    ///   another shape, an unknown tag or fields of the wrong type.
    public static func decodeClientMessage(_ text: String) throws(ActorError) -> ClientMessage {
        try decodeClientMessage(utf8: Array(text.utf8))
    }

    /// The client message in a frame's UTF-8 bytes.
    ///
    /// - Throws: ``ActorError`` `message.malformed` as ``decodeClientMessage(_:)`` does.
    public static func decodeClientMessage(utf8 bytes: [UInt8]) throws(ActorError) -> ClientMessage {
        if let (id, name, args) = CompactFrameReader.actionRequest(bytes) {
            return .actionRequest(id: id, name: name, args: try args.map(decodeValue))
        }
        let (tag, val) = try open(bytes)
        switch tag {
        case "ActionRequest":
            let id = try RivetJSONCompat.unsigned(try field(val, "id"))
            guard case .string(let name) = try field(val, "name") else { throw .malformed("ActionRequest.name is a string") }
            guard case .array(let args) = try field(val, "args") else { throw .malformed("ActionRequest.args is an array") }
            return .actionRequest(id: id, name: name, args: try args.map(decodeValue))
        case "SubscriptionRequest":
            guard case .string(let eventName) = try field(val, "eventName") else {
                throw .malformed("SubscriptionRequest.eventName is a string")
            }
            guard case .bool(let subscribe) = try field(val, "subscribe") else {
                throw .malformed("SubscriptionRequest.subscribe is a boolean")
            }
            return .subscriptionRequest(eventName: eventName, subscribe: subscribe)
        default:
            throw .malformed("unknown client message tag \(tag)")
        }
    }

    /// The server message in a frame.
    ///
    /// - Throws: ``ActorError`` `message.malformed` as ``decodeClientMessage(_:)`` does, and
    ///   for an `Error` without `actionId`.
    public static func decodeServerMessage(_ text: String) throws(ActorError) -> ServerMessage {
        try decodeServerMessage(utf8: Array(text.utf8))
    }

    /// The server message in a frame's UTF-8 bytes.
    ///
    /// - Throws: ``ActorError`` `message.malformed` as ``decodeServerMessage(_:)`` does.
    public static func decodeServerMessage(utf8 bytes: [UInt8]) throws(ActorError) -> ServerMessage {
        if let (id, output) = CompactFrameReader.actionResponse(bytes) {
            return .actionResponse(id: id, output: try decodeValue(output))
        }
        let (tag, val) = try open(bytes)
        switch tag {
        case "Init":
            guard case .string(let actorId) = try field(val, "actorId"),
                case .string(let connectionId) = try field(val, "connectionId")
            else { throw .malformed("Init carries actorId and connectionId strings") }
            return .initialize(actorId: actorId, connectionId: connectionId)
        case "ActionResponse":
            let id = try RivetJSONCompat.unsigned(try field(val, "id"))
            return .actionResponse(id: id, output: try decodeValue(val["output"] ?? .null))
        case "Event":
            guard case .string(let name) = try field(val, "name") else { throw .malformed("Event.name is a string") }
            guard case .array(let args) = try field(val, "args") else { throw .malformed("Event.args is an array") }
            return .event(name: name, args: try args.map(decodeValue))
        case "Error":
            let error = try decodeError(.object(val))
            let actionId = try field(val, "actionId")
            return .error(error, actionId: actionId.isNull ? nil : try RivetJSONCompat.unsigned(actionId))
        default:
            throw .malformed("unknown server message tag \(tag)")
        }
    }

    // MARK: HTTP actions

    /// The body of `POST …/action/{name}`: `{"args":[…]}`.
    public static func encodeActionRequestBody(args: [JSONValue]) -> String {
        JSONValue.object(JSONObject([("args", .array(args.map(RivetJSONCompat.encode)))])).description
    }

    /// The arguments in an HTTP action request body; a body without `args` has none.
    ///
    /// - Throws: ``ActorError`` `message.malformed` for a body that is not such an object.
    public static func decodeActionRequestBody(_ body: [UInt8]) throws(ActorError) -> [JSONValue] {
        let value = try parse(body)
        guard case .object(let object) = value else { throw .malformed("the action body is a JSON object") }
        switch object["args"] {
        case nil, .null?:
            return []
        case .array(let args)?:
            return try args.map(decodeValue)
        default:
            throw .malformed("the action body's args is an array")
        }
    }

    /// The body answering an HTTP action: `{"output":…}`.
    public static func encodeActionResponseBody(output: JSONValue) -> String {
        JSONValue.object(JSONObject([("output", RivetJSONCompat.encode(output))])).description
    }

    /// The output in an HTTP action response body.
    ///
    /// - Throws: ``ActorError`` `message.malformed` for a body that is not such an object.
    public static func decodeActionResponseBody(_ body: [UInt8]) throws(ActorError) -> JSONValue {
        guard case .object(let object) = try parse(body) else { throw .malformed("the action response is a JSON object") }
        return try decodeValue(object["output"] ?? .null)
    }

    /// The JSON error body of a failed HTTP request: `{"group","code","message","metadata"?}`.
    public static func encodeErrorBody(_ error: ActorError) -> String {
        JSONValue.object(JSONObject(errorMembers(error))).description
    }

    /// The error in a JSON error body; `nil` when the body is not one.
    public static func decodeErrorBody(_ body: [UInt8]) -> ActorError? {
        guard let value = try? parse(body) else { return nil }
        return try? decodeError(value)
    }

    // MARK: Internals

    private static func envelope(_ tag: String, _ members: [(String, JSONValue)]) -> String {
        let body: JSONValue = .object(JSONObject([("tag", .string(tag)), ("val", .object(JSONObject(members)))]))
        return JSONValue.object(JSONObject([("body", body)])).description
    }

    private static func errorMembers(_ error: ActorError) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("group", .string(error.group)), ("code", .string(error.code)), ("message", .string(error.message)),
        ]
        if let metadata = error.metadata {
            members.append(("metadata", RivetJSONCompat.encode(metadata)))
        }
        return members
    }

    private static func decodeError(_ value: JSONValue) throws(ActorError) -> ActorError {
        guard case .object(let object) = value, case .string(let group)? = object["group"],
            case .string(let code)? = object["code"]
        else { throw .malformed("an error carries group and code strings") }
        let metadata: JSONValue?
        switch object["metadata"] {
        case nil, .null?: metadata = nil
        case let value?: metadata = try decodeValue(value)
        }
        return ActorError(group: group, code: code, message: object["message"]?.stringValue ?? "", metadata: metadata)
    }

    private static func decodeValue(_ value: JSONValue) throws(ActorError) -> JSONValue {
        try RivetJSONCompat.decode(value)
    }

    private static func parse(_ bytes: [UInt8]) throws(ActorError) -> JSONValue {
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw .malformed("not JSON: \(error.message)")
        }
    }

    private static func open(_ bytes: [UInt8]) throws(ActorError) -> (String, JSONObject) {
        let value = try parse(bytes)
        guard case .object(let envelope) = value, case .object(let body)? = envelope["body"],
            case .string(let tag)? = body["tag"], case .object(let val)? = body["val"]
        else { throw .malformed("a frame is {\"body\":{\"tag\":…,\"val\":{…}}}") }
        return (tag, val)
    }

    private static func field(_ object: JSONObject, _ name: String) throws(ActorError) -> JSONValue {
        guard let value = object[name] else { throw .malformed("the field \(name) is missing") }
        return value
    }
}

/// Writes a frame envelope straight into bytes, without building the envelope as a value.
private struct FrameWriter {
    var writer = JSONWriter(reservingCapacity: 128)

    init(tag: StaticString) {
        writer.writeRaw("{\"body\":{\"tag\":\"")
        writer.writeRaw(tag)
        writer.writeRaw("\",\"val\":{")
    }

    mutating func key(_ name: StaticString, first: Bool = false) {
        writer.writeRaw(first ? "\"" : ",\"")
        writer.writeRaw(name)
        writer.writeRaw("\":")
    }

    /// `["$BigInt","n"]`.
    mutating func bigInt(_ value: UInt64) {
        writer.writeRaw("[\"$BigInt\",\"")
        writer.bytes.append(contentsOf: String(value).utf8)
        writer.writeRaw("\"]")
    }

    /// A user value in the compat encoding, written as `JSONValue.description` writes it.
    mutating func value(_ value: JSONValue) {
        let wire = RivetJSONCompat.needsEncoding(value) ? RivetJSONCompat.encode(value) : value
        let mark = writer.bytes.count
        do {
            try writer.write(wire)
        } catch {
            // A non-finite number or a deep value: the lenient form (null, no depth limit).
            writer.bytes.removeSubrange(mark...)
            writer.bytes.append(contentsOf: wire.description.utf8)
        }
    }

    mutating func values(_ values: [JSONValue]) {
        writer.writeRaw("[")
        for (index, element) in values.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            value(element)
        }
        writer.writeRaw("]")
    }

    mutating func finish() -> [UInt8] {
        writer.writeRaw("}}}")
        return writer.bytes
    }
}

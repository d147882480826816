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
        switch message {
        case .actionRequest(let id, let name, let args):
            envelope(
                "ActionRequest",
                [
                    ("id", RivetJSONCompat.bigInt(id)),
                    ("name", .string(name)),
                    ("args", .array(args.map(RivetJSONCompat.encode))),
                ])
        case .subscriptionRequest(let eventName, let subscribe):
            envelope("SubscriptionRequest", [("eventName", .string(eventName)), ("subscribe", .bool(subscribe))])
        }
    }

    /// The frame for a server message.
    public static func encode(_ message: ServerMessage) -> String {
        switch message {
        case .initialize(let actorId, let connectionId):
            return envelope("Init", [("actorId", .string(actorId)), ("connectionId", .string(connectionId))])
        case .actionResponse(let id, let output):
            return envelope("ActionResponse", [("id", RivetJSONCompat.bigInt(id)), ("output", RivetJSONCompat.encode(output))])
        case .event(let name, let args):
            return envelope("Event", [("name", .string(name)), ("args", .array(args.map(RivetJSONCompat.encode)))])
        case .error(let error, let actionId):
            var members = errorMembers(error)
            members.append(("actionId", actionId.map(RivetJSONCompat.bigInt) ?? .null))
            return envelope("Error", members)
        }
    }

    /// The client message in a frame.
    ///
    /// - Throws: ``ActorError`` `message.malformed` for text that is not JSON, an envelope of
    ///   another shape, an unknown tag or fields of the wrong type.
    public static func decodeClientMessage(_ text: String) throws(ActorError) -> ClientMessage {
        let (tag, val) = try open(text)
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
        let (tag, val) = try open(text)
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

    private static func open(_ text: String) throws(ActorError) -> (String, JSONObject) {
        let value = try parse(Array(text.utf8))
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

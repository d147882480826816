import RpcWire
import TinyvexProtocol

/// One Tinyvex request with its params read and checked: every member a method takes, of the
/// right type and within its bounds. Whatever is not is `-32602` (or `-32601` for an unknown
/// method), before anything runs.
enum TinyvexRequest: Sendable, Equatable {
    /// `transitions`: the connection asked for `tinyvex/transition` (`features.transitions`).
    case connect(clientID: String?, token: String?, transitions: Bool)
    case subscribe(subID: String, name: String, params: JSONValue, lastSeq: Int64?)
    case unsubscribe(subID: String)
    /// A one-shot query: its value once, no subscription.
    case query(name: String, params: JSONValue)
    case mutation(requestID: String, clientID: String?, name: String, args: JSONValue)
    case action(requestID: String, name: String, args: JSONValue)
    case setToken(String?)
    /// `t` is the caller's number, or `nil` for the server's clock.
    case ping(t: JSONValue?)

    init(method: String, params: JSONRPCParams?, maxIdentifierBytes: Int) throws(JSONRPCErrorObject) {
        let params = try RequestParams(params)
        switch method {
        case TinyvexMethod.connect:
            let clientID = try params.optionalString("clientId", maxBytes: maxIdentifierBytes)
            if clientID?.isEmpty == true { throw .invalidParams("clientId must not be empty") }
            let transitions: Bool
            switch params.members["features"] {
            case nil, .null?: transitions = false
            case .object(let features)?:
                switch features["transitions"] {
                case nil, .null?: transitions = false
                case .bool(let on)?: transitions = on
                default: throw .invalidParams("features.transitions must be a boolean")
                }
            default: throw .invalidParams("features must be an object")
            }
            self = .connect(clientID: clientID, token: try params.optionalString("token"), transitions: transitions)
        case TinyvexMethod.subscribe:
            let subID = try params.string("subId", maxBytes: maxIdentifierBytes)
            let name = try params.string("name")
            let queryParams = try params.object("params")
            let lastSeq = try params.optionalInteger("lastSeq")
            if let lastSeq, lastSeq < 0 { throw .invalidParams("lastSeq must not be negative") }
            self = .subscribe(subID: subID, name: name, params: queryParams, lastSeq: lastSeq)
        case TinyvexMethod.unsubscribe:
            self = .unsubscribe(subID: try params.string("subId", maxBytes: maxIdentifierBytes))
        case TinyvexMethod.query:
            self = .query(name: try params.string("name"), params: try params.object("params"))
        case TinyvexMethod.mutation:
            let requestID = try params.string("requestId", maxBytes: maxIdentifierBytes)
            let clientID = try params.optionalString("clientId", maxBytes: maxIdentifierBytes)
            if clientID?.isEmpty == true { throw .invalidParams("clientId must not be empty") }
            self = .mutation(requestID: requestID, clientID: clientID, name: try params.string("name"), args: params.value("args"))
        case TinyvexMethod.action:
            let requestID = try params.string("requestId", maxBytes: maxIdentifierBytes)
            self = .action(requestID: requestID, name: try params.string("name"), args: params.value("args"))
        case TinyvexMethod.setToken:
            guard params.members["token"] != nil else { throw .invalidParams("token must be a string or null") }
            self = .setToken(try params.optionalString("token"))
        case TinyvexMethod.ping:
            switch params.members["t"] {
            case nil, .null?: self = .ping(t: nil)
            case .integer(let t)?: self = .ping(t: .integer(t))
            case .double(let t)?: self = .ping(t: .double(t))
            default: throw .invalidParams("t must be a number")
            }
        default:
            throw .methodNotFound(method)
        }
    }
}

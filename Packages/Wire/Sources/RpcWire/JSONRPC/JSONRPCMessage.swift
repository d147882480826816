/// One JSON-RPC 2.0 message: a request, a notification or a response.
///
/// ```swift
/// let request = JSONRPCMessage.request(id: 1, method: "subtract", params: .positional([42, 23]))
/// let bytes = try JSONRPCCodec().encode(.single(request))
/// // {"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}
/// ```
public enum JSONRPCMessage: Sendable, Hashable {
    /// A call that expects a response with the same id.
    case request(id: JSONRPCID, method: String, params: JSONRPCParams?)
    /// A call that expects no response (it has no `id` member).
    case notification(method: String, params: JSONRPCParams?)
    /// A successful response.
    case success(id: JSONRPCID, result: JSONValue)
    /// A failed response.
    case failure(id: JSONRPCID, error: JSONRPCErrorObject)

    /// The id of a request or response; `nil` for a notification.
    public var id: JSONRPCID? {
        switch self {
        case .request(let id, _, _), .success(let id, _), .failure(let id, _): id
        case .notification: nil
        }
    }

    /// The method of a request or notification; `nil` for a response.
    public var method: String? {
        switch self {
        case .request(_, let method, _), .notification(let method, _): method
        case .success, .failure: nil
        }
    }

    /// Whether this is a response (success or failure).
    public var isResponse: Bool {
        switch self {
        case .success, .failure: true
        case .request, .notification: false
        }
    }
}

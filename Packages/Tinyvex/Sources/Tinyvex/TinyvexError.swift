public import RpcWire

/// What a Tinyvex call or subscription fails with.
public enum TinyvexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an error: a Tinyvex code (`"TVX003"`) or a JSON-RPC code
    /// (`"-32602"`), its message, and the details the server attached.
    case server(code: String, message: String, data: JSONValue?)
    /// A value from the server does not decode as the requested type, or arguments do not
    /// encode; the reason says which.
    case decoding(String)
    /// The connection failed, was lost while an action was in flight, timed out or was closed.
    case transport(String)

    /// A readable summary.
    public var description: String {
        switch self {
        case .server(let code, let message, _): "server error \(code): \(message)"
        case .decoding(let reason): "decoding failed: \(reason)"
        case .transport(let reason): "transport failed: \(reason)"
        }
    }
}

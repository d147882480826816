public import RpcWire
internal import TinyvexProtocol

/// What a Tinyvex call or subscription fails with.
///
/// Every case reads as an ``RpcFailure`` (see ``rpcFailure``).
public enum TinyvexError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an error: a Tinyvex code (`"TVX003"`) or a JSON-RPC code
    /// (`"-32602"`), its message, and the details the server attached.
    case server(code: String, message: String, data: JSONValue?)
    /// A value from the server does not decode as the requested type, or arguments do not
    /// encode; the reason says which.
    case decoding(String)
    /// The connection failed, was lost while an action was in flight, timed out or was closed;
    /// the failure keeps the connection's own error as its cause.
    case transport(RpcFailure)

    /// A readable summary.
    public var description: String {
        switch self {
        case .server(let code, let message, _): "server error \(code): \(message)"
        case .decoding(let reason): "decoding failed: \(reason)"
        case .transport(let failure): "transport failed: \(failure.message)"
        }
    }
}

extension TinyvexError: RpcFailureConvertible {
    /// The failure as an ``RpcFailure``, with the layer `tinyvex` and this error as the
    /// cause.
    ///
    /// | Case | RpcFailure code | Origin | Reason |
    /// |---|---|---|---|
    /// | ``server(code:message:data:)`` with a Tinyvex code | the code's mapping (`TVX001` `notFound`, `TVX003` `aborted`, …, see `TinyvexErrorCode.rpcFailureCode`) | remote | the code, e.g. `TVX003` |
    /// | ``server(code:message:data:)`` with a JSON-RPC code | ``RpcFailure/Code/init(jsonRPCCode:)`` | remote | the code, e.g. `-32602` |
    /// | ``decoding(_:)`` | `internalError` | local | `decoding` |
    /// | ``transport(_:)`` | the carried failure's code | the carried failure's origin | `transport` |
    public var rpcFailure: RpcFailure {
        switch self {
        case .server(let code, let message, _):
            let mapped: RpcFailure.Code =
                if let known = TinyvexErrorCode(rawValue: code) {
                    known.rpcFailureCode
                } else if let number = Int(code) {
                    RpcFailure.Code(jsonRPCCode: number)
                } else {
                    .unknown
                }
            return RpcFailure(
                code: mapped, message: message, origin: .remote,
                metadata: [RpcFailure.layerKey: "tinyvex", RpcFailure.reasonKey: code], cause: self)
        case .decoding(let reason):
            return RpcFailure(
                code: .internalError, message: reason, origin: .local,
                metadata: [RpcFailure.layerKey: "tinyvex", RpcFailure.reasonKey: "decoding"], cause: self)
        case .transport(let failure):
            return RpcFailure(
                code: failure.code, message: failure.message, origin: failure.origin,
                metadata: [RpcFailure.layerKey: "tinyvex", RpcFailure.reasonKey: "transport"], cause: self)
        }
    }
}

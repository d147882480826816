public import RpcTransport

extension RpcError: RpcFailureConvertible {
    /// The session's failure as an `RpcFailure`, with the layer `capnweb`, the
    /// case's name as the reason (`remote`, `connectionLost`, `timeout`, `cancelled`,
    /// `invalidResponse`) and this error as the cause.
    ///
    /// | Case | RpcFailure code | Origin |
    /// |---|---|---|
    /// | ``remote(type:message:)`` | by the error's name (see ``RpcErrorValue/rpcFailure``); the name is in metadata `type` | remote |
    /// | ``connectionLost(_:)`` with a `TransportError` | the transport code's mapping (`invalidTarget` is `invalidArgument`, `closed` is `unavailable`, …) | local |
    /// | ``connectionLost(_:)`` with a ``RpcErrorValue`` (the peer aborted) | `unavailable` | remote |
    /// | ``connectionLost(_:)`` otherwise | `unavailable` | local |
    /// | ``timeout`` | `deadlineExceeded` | local |
    /// | ``cancelled`` | `cancelled` | local |
    /// | ``invalidResponse(_:)`` | `internalError` | local |
    ///
    /// A value this side refuses to send is reported, as the reference implementation reports
    /// it, with ``remote(type:message:)`` of type `TypeError` or `RangeError`; that case cannot
    /// tell it from the peer's own rejection, so it maps to a remote `invalidArgument` or
    /// `outOfRange`.
    public var rpcFailure: RpcFailure {
        var metadata = [RpcFailure.layerKey: "capnweb"]
        let code: RpcFailure.Code
        var origin = RpcFailure.Origin.local
        let message: String
        switch self {
        case .remote(let type, let text):
            metadata[RpcFailure.reasonKey] = "remote"
            metadata["type"] = type
            code = RpcErrorValue.rpcFailureCode(name: type)
            origin = .remote
            message = text
        case .connectionLost(let underlying):
            metadata[RpcFailure.reasonKey] = "connectionLost"
            switch underlying {
            case let transport as TransportError:
                code = transport.code.rpcFailureCode(httpStatus: transport.httpStatus)
            case is RpcErrorValue:
                code = .unavailable
                origin = .remote
            default:
                code = .unavailable
            }
            message = description
        case .timeout:
            metadata[RpcFailure.reasonKey] = "timeout"
            code = .deadlineExceeded
            message = description
        case .cancelled:
            metadata[RpcFailure.reasonKey] = "cancelled"
            code = .cancelled
            message = description
        case .invalidResponse(let detail):
            metadata[RpcFailure.reasonKey] = "invalidResponse"
            code = .internalError
            message = detail
        }
        return RpcFailure(code: code, message: message, origin: origin, metadata: metadata, cause: self)
    }
}

internal import CapnWeb

extension RpcError: RpcFailureConvertible {
    /// The call's failure as an ``RpcFailure``, with the layer `rpcdo`, the case's name
    /// as the reason, and this error as the cause.
    ///
    /// | Case | RpcFailure code | Origin |
    /// |---|---|---|
    /// | ``remote(type:message:)`` | by the error's name: `TypeError` `invalidArgument`, `RangeError` `outOfRange`, any other `unknown`; the name is in metadata `type` | remote |
    /// | ``connectionLost(_:)`` | `unavailable` | local |
    /// | ``timeout`` | `deadlineExceeded` | local |
    /// | ``cancelled`` | `cancelled` | local |
    /// | ``invalidResponse(_:)`` | `internalError` | local |
    /// | ``invalidArgument(_:)`` | `invalidArgument` | local |
    /// | ``notFound(_:)`` | `notFound` | remote |
    /// | ``notImplemented(_:)`` | `unimplemented` | remote |
    /// | ``authenticationFailed(_:)`` | `unauthenticated` | remote |
    /// | ``rateLimitExceeded(retryAfter:)`` | `resourceExhausted`; the wait, in seconds, in metadata `retryAfter` | remote |
    ///
    /// The cases carry text only, so the error below one of them (the transport's error behind
    /// ``connectionLost(_:)``, for example) is not reachable from the failure: only its
    /// description, in ``RpcFailure/message``.
    public var rpcFailure: RpcFailure {
        let code: RpcFailure.Code
        let origin: RpcFailure.Origin
        var metadata = [RpcFailure.layerKey: "rpcdo", RpcFailure.reasonKey: reason]
        let message: String
        switch self {
        case .remote(let type, let text):
            code = RpcErrorValue.rpcFailureCode(name: type)
            origin = .remote
            metadata["type"] = type
            message = text
        case .connectionLost(let reason):
            code = .unavailable
            origin = .local
            message = reason ?? description
        case .timeout:
            (code, origin, message) = (.deadlineExceeded, .local, description)
        case .cancelled:
            (code, origin, message) = (.cancelled, .local, description)
        case .invalidResponse(let detail):
            (code, origin, message) = (.internalError, .local, detail)
        case .invalidArgument(let detail):
            (code, origin, message) = (.invalidArgument, .local, detail)
        case .notFound(let detail):
            (code, origin, message) = (.notFound, .remote, detail)
        case .notImplemented(let detail):
            (code, origin, message) = (.unimplemented, .remote, detail)
        case .authenticationFailed(let detail):
            (code, origin, message) = (.unauthenticated, .remote, detail)
        case .rateLimitExceeded(let retryAfter):
            (code, origin, message) = (.resourceExhausted, .remote, description)
            if let retryAfter { metadata["retryAfter"] = "\(retryAfter)" }
        }
        return RpcFailure(code: code, message: message, origin: origin, metadata: metadata, cause: self)
    }

    /// The case's name, the stable reason of the failure (`notFound`, `rateLimitExceeded`, …).
    package var reason: String {
        switch self {
        case .remote: "remote"
        case .connectionLost: "connectionLost"
        case .timeout: "timeout"
        case .cancelled: "cancelled"
        case .invalidResponse: "invalidResponse"
        case .invalidArgument: "invalidArgument"
        case .notFound: "notFound"
        case .notImplemented: "notImplemented"
        case .authenticationFailed: "authenticationFailed"
        case .rateLimitExceeded: "rateLimitExceeded"
        }
    }
}

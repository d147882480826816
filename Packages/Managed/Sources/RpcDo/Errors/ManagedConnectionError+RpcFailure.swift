extension ManagedConnectionError: RpcFailureConvertible {
    /// The managed connection's failure as an ``RpcFailure``, with the layer `managed`,
    /// the code's name as the reason, and this error as the cause.
    ///
    /// | Code | RpcFailure code | Origin |
    /// |---|---|---|
    /// | `notConnected`, `connectionLost`, `closed` | `unavailable` | local |
    /// | `offlineQueueFull` | `resourceExhausted` | local |
    /// | `timeout` | `deadlineExceeded` | local |
    /// | `cancelled` | `cancelled` | local |
    /// | `invalidRequest` | `invalidArgument` | local |
    /// | `remote` with the peer's error object | by its JSON-RPC code (``RpcFailure/Code/init(jsonRPCCode:)``); the code is in metadata `jsonrpcCode` | remote |
    /// | `remote` without one (the peer sent something unusable) | `internalError` | local |
    public var rpcFailure: RpcFailure {
        var metadata = [RpcFailure.layerKey: "managed", RpcFailure.reasonKey: code.name]
        if code == .remote, let remote {
            metadata["jsonrpcCode"] = String(remote.code)
            return RpcFailure(
                code: RpcFailure.Code(jsonRPCCode: remote.code), message: message, origin: .remote,
                metadata: metadata, cause: self)
        }
        return RpcFailure(code: code.rpcFailureCode, message: message, origin: .local, metadata: metadata, cause: self)
    }
}

extension ManagedConnectionError.Code {
    /// Every code, in declaration order.
    package static let all: [Self] = [
        .notConnected, .offlineQueueFull, .timeout, .connectionLost, .closed, .cancelled, .remote, .invalidRequest,
    ]

    /// The code's stable name, its case name (`notConnected`, `offlineQueueFull`, …).
    package var name: String {
        switch self {
        case .notConnected: "notConnected"
        case .offlineQueueFull: "offlineQueueFull"
        case .timeout: "timeout"
        case .connectionLost: "connectionLost"
        case .closed: "closed"
        case .cancelled: "cancelled"
        case .remote: "remote"
        case .invalidRequest: "invalidRequest"
        }
    }

    /// The ``RpcFailure/Code`` this code maps to when no peer's error object says
    /// more (see ``ManagedConnectionError/rpcFailure``).
    package var rpcFailureCode: RpcFailure.Code {
        switch self {
        case .notConnected, .connectionLost, .closed: .unavailable
        case .offlineQueueFull: .resourceExhausted
        case .timeout: .deadlineExceeded
        case .cancelled: .cancelled
        case .invalidRequest: .invalidArgument
        case .remote: .internalError
        }
    }
}

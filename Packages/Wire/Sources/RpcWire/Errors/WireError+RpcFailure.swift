extension WireError: RpcFailureConvertible {
    /// The Wire layer's failure as an ``RpcFailure``: always ``RpcFailure/Origin/local`` (this
    /// process could not read or write the text), with the code from ``Code/rpcFailureCode``,
    /// the layer `wire`, the reason ``code``, the ``location`` and ``path`` when known, and this
    /// error as the cause.
    public var rpcFailure: RpcFailure {
        var metadata = [RpcFailure.layerKey: "wire", RpcFailure.reasonKey: code.rawValue]
        if let location { metadata["location"] = location.description }
        if let path { metadata["path"] = path }
        return RpcFailure(code: code.rpcFailureCode, message: message, origin: .local, metadata: metadata, cause: self)
    }
}

extension WireError.Code {
    /// The ``RpcFailure/Code`` this code maps to: a limit (``depthLimitExceeded``,
    /// ``inputTooLarge``) is ``RpcFailure/Code/resourceExhausted``, a number too large to hold
    /// (``numberOutOfRange``) is ``RpcFailure/Code/outOfRange``, and every other code (text or a
    /// message that breaks its grammar) is ``RpcFailure/Code/invalidArgument``.
    public var rpcFailureCode: RpcFailure.Code {
        switch self {
        case .depthLimitExceeded, .inputTooLarge: .resourceExhausted
        case .numberOutOfRange: .outOfRange
        default: .invalidArgument
        }
    }
}

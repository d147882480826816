extension TransportError: RpcFailureConvertible {
    /// The Transport layer's failure as an `RpcFailure`: always
    /// `RpcFailure.Origin.local` (this process could not connect, send or receive; a
    /// close the peer asked for is still this connection failing), with the code from
    /// ``Code/rpcFailureCode(httpStatus:)``, the layer `transport`, the reason ``code``, the
    /// ``closeCode`` and ``httpStatus`` when present, and this error as the cause (its own
    /// ``cause`` stays reachable through it).
    public var rpcFailure: RpcFailure {
        var metadata = [RpcFailure.layerKey: "transport", RpcFailure.reasonKey: code.rawValue]
        if let closeCode { metadata["closeCode"] = String(closeCode.rawValue) }
        if let httpStatus { metadata["httpStatus"] = String(httpStatus) }
        return RpcFailure(
            code: code.rpcFailureCode(httpStatus: httpStatus), message: message, origin: .local,
            metadata: metadata, cause: self)
    }
}

extension TransportError.Code {
    /// The `RpcFailure.Code` this code maps to.
    ///
    /// | Transport code | RpcFailure code |
    /// |---|---|
    /// | `invalidTarget`, `tlsConfigurationInvalid` | `invalidArgument` |
    /// | `connectFailed`, `handshakeFailed`, `tlsHandshakeFailed`, `closed`, `keepaliveTimeout`, `ioError`, `serverShutdown`, `notConnected` | `unavailable` |
    /// | `connectTimeout`, `handshakeTimeout`, `readTimeout` | `deadlineExceeded` |
    /// | `certificateUntrusted`, `certificateExpired`, `hostnameMismatch`, `pinMismatch` | `failedPrecondition` |
    /// | `protocolViolation`, `invalidUTF8` | `internalError` |
    /// | `messageTooLarge`, `peerNotReading`, `requestTooLarge`, `offlineQueueFull` | `resourceExhausted` |
    /// | `cancelled` | `cancelled` |
    /// | `upgradeRejected`, `httpStatus` | by `httpStatus`: 400 `invalidArgument`, 401 `unauthenticated`, 403 `permissionDenied`, 404 `notFound`, 408 `deadlineExceeded`, 413 and 429 `resourceExhausted`, 501 `unimplemented`, 502, 503 and 504 `unavailable`; otherwise `unavailable` for `upgradeRejected` and `unknown` for `httpStatus` |
    public func rpcFailureCode(httpStatus: Int? = nil) -> RpcFailure.Code {
        switch self {
        case .invalidTarget, .tlsConfigurationInvalid: .invalidArgument
        case .connectFailed, .handshakeFailed, .tlsHandshakeFailed, .closed, .keepaliveTimeout, .ioError,
            .serverShutdown, .notConnected:
            .unavailable
        case .connectTimeout, .handshakeTimeout, .readTimeout: .deadlineExceeded
        case .certificateUntrusted, .certificateExpired, .hostnameMismatch, .pinMismatch: .failedPrecondition
        case .protocolViolation, .invalidUTF8: .internalError
        case .messageTooLarge, .peerNotReading, .requestTooLarge, .offlineQueueFull: .resourceExhausted
        case .cancelled: .cancelled
        case .upgradeRejected: Self.code(httpStatus: httpStatus) ?? .unavailable
        default: Self.code(httpStatus: httpStatus) ?? .unknown
        }
    }

    /// The code an HTTP status stands for, when it stands for one.
    private static func code(httpStatus: Int?) -> RpcFailure.Code? {
        switch httpStatus {
        case 400?: .invalidArgument
        case 401?: .unauthenticated
        case 403?: .permissionDenied
        case 404?: .notFound
        case 408?: .deadlineExceeded
        case 413?, 429?: .resourceExhausted
        case 501?: .unimplemented
        case 502?, 503?, 504?: .unavailable
        default: nil
        }
    }
}

internal import RpcTransport

extension RpcError {
    /// A value this side refuses to send (not encodable, a value used where it cannot be),
    /// rejected locally the way the reference implementation rejects it: as a `TypeError`
    /// (or `RangeError` for a local limit), before anything is sent.
    package static func rejectedLocally(_ message: String, type: String = "TypeError") -> RpcError {
        .remote(type: type, message: message)
    }

    /// A URL or a connect setting that cannot be used: the connection is never made, and the
    /// underlying ``TransportError`` says why with the code
    /// ``TransportError/Code/invalidTarget``.
    package static func invalidTarget(_ message: String) -> RpcError {
        .connectionLost(TransportError(code: .invalidTarget, message: message))
    }
}

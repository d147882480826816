public import TinyvexProtocol
public import RpcWire

/// An error a query, mutation or action throws to answer its caller with a Tinyvex code.
///
/// Any other error a function throws is reported as `TinyvexErrorCode.mutationFailed` (or
/// `TinyvexErrorCode.subscriptionRejected` for a query) with the error's description.
public struct TinyvexServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Tinyvex code the caller receives.
    public var code: TinyvexErrorCode
    /// A human-readable reason.
    public var message: String
    /// Details for the caller, sent as `data.details`.
    public var details: JSONValue?

    /// Creates an error.
    public init(_ code: TinyvexErrorCode, _ message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// The code and the message.
    public var description: String { "\(code.rawValue) \(code.name): \(message)" }
}

extension TinyvexServerError: RpcFailureConvertible {
    /// The error as an `RpcFailure`: the code from
    /// `TinyvexErrorCode.rpcFailureCode`, origin local (this server fails the call), the layer
    /// `tinyvex-server`, the reason the Tinyvex code (`TVX003`), and this error as the cause.
    public var rpcFailure: RpcFailure {
        RpcFailure(
            code: code.rpcFailureCode, message: message, origin: .local,
            metadata: [RpcFailure.layerKey: "tinyvex-server", RpcFailure.reasonKey: code.rawValue, "name": code.name],
            cause: self)
    }
}

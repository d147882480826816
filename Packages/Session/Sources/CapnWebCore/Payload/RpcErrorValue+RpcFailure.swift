public import RpcTransport

extension RpcErrorValue: RpcFailureConvertible {
    /// The peer's error as an `RpcFailure`: origin remote, the code from
    /// ``rpcFailureCode(name:)``, the layer `capnweb`, the reason `remote`, the name in
    /// metadata `type`, and this value as the cause (its properties stay readable there).
    public var rpcFailure: RpcFailure {
        RpcFailure(
            code: Self.rpcFailureCode(name: name), message: message, origin: .remote,
            metadata: [RpcFailure.layerKey: "capnweb", RpcFailure.reasonKey: "remote", "type": name], cause: self)
    }

    /// The `RpcFailure.Code` an error name stands for.
    ///
    /// | Name | RpcFailure code |
    /// |---|---|
    /// | `NotFound`, `NotFoundError` | `notFound` |
    /// | `NotImplemented`, `NotImplementedError` | `unimplemented` |
    /// | `Unauthenticated`, `AuthenticationError` | `unauthenticated` |
    /// | `RateLimitExceeded`, `RateLimitError` | `resourceExhausted` |
    /// | `TypeError` | `invalidArgument` |
    /// | `RangeError` | `outOfRange` |
    /// | any other (`Error`, an application's name) | `unknown` |
    public static func rpcFailureCode(name: String) -> RpcFailure.Code {
        switch name {
        case "NotFound", "NotFoundError": .notFound
        case "NotImplemented", "NotImplementedError": .unimplemented
        case "Unauthenticated", "AuthenticationError": .unauthenticated
        case "RateLimitExceeded", "RateLimitError": .resourceExhausted
        case "TypeError": .invalidArgument
        case "RangeError": .outOfRange
        default: .unknown
        }
    }
}

public import RpcWire

extension TinyvexErrorCode {
    /// The `RpcFailure.Code` this code maps to.
    ///
    /// | Tinyvex code | RpcFailure code |
    /// |---|---|
    /// | `TVX001` subscriptionNotFound | `notFound` |
    /// | `TVX002` subscriptionRejected | `failedPrecondition` |
    /// | `TVX003` mutationFailed | `aborted` |
    /// | `TVX004` resumeFailed | `outOfRange` |
    /// | `TVX005` backpressureDrop | `resourceExhausted` |
    /// | `TVX006` unauthorized | `unauthenticated` |
    /// | `TVX007` timeout | `deadlineExceeded` |
    public var rpcFailureCode: RpcFailure.Code {
        switch self {
        case .subscriptionNotFound: .notFound
        case .subscriptionRejected: .failedPrecondition
        case .mutationFailed: .aborted
        case .resumeFailed: .outOfRange
        case .backpressureDrop: .resourceExhausted
        case .unauthorized: .unauthenticated
        case .timeout: .deadlineExceeded
        }
    }
}

/// The application error codes of the Tinyvex protocol.
///
/// In an error answer the code travels as the JSON-RPC code ``jsonRPCCode`` with the Tinyvex
/// code (`"TVX003"`) in `data.code`; in a `tinyvex/error` notification as `code` directly.
public enum TinyvexErrorCode: String, Sendable, Hashable, CaseIterable {
    /// `unsubscribe` of a `subId` the connection does not hold.
    case subscriptionNotFound = "TVX001"
    /// A subscription the server refuses, or a live query that failed.
    case subscriptionRejected = "TVX002"
    /// A mutation or action that is unknown, got bad args, or threw.
    case mutationFailed = "TVX003"
    /// A `lastSeq` ahead of the server: a fresh value follows.
    case resumeFailed = "TVX004"
    /// The send queue overflowed and waiting values were coalesced.
    case backpressureDrop = "TVX005"
    /// A refused token, or a call that needs an identity made without one.
    case unauthorized = "TVX006"
    /// A query evaluation or an action that ran past its limit.
    case timeout = "TVX007"

    /// The JSON-RPC error code used when this code answers a request (-32001 … -32007).
    public var jsonRPCCode: Int {
        switch self {
        case .subscriptionNotFound: -32001
        case .subscriptionRejected: -32002
        case .mutationFailed: -32003
        case .resumeFailed: -32004
        case .backpressureDrop: -32005
        case .unauthorized: -32006
        case .timeout: -32007
        }
    }

    /// A short name for messages.
    public var name: String {
        switch self {
        case .subscriptionNotFound: "SubscriptionNotFound"
        case .subscriptionRejected: "SubscriptionRejected"
        case .mutationFailed: "MutationFailed"
        case .resumeFailed: "ResumeFailed"
        case .backpressureDrop: "BackpressureDrop"
        case .unauthorized: "Unauthorized"
        case .timeout: "Timeout"
        }
    }
}

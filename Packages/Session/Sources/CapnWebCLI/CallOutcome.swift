internal import CapnWeb

/// How a `capnweb call` ended.
enum CallOutcome: Sendable {
    /// The last expression's value, streams read to the end.
    case value(RpcPayload)
    /// The server rejected a call.
    case rejected(name: String, message: String)
    /// An expression cannot be evaluated; the message says why.
    case invalid(String)
    /// The connection failed, or the answer could not be used.
    case failed(String)
    /// The timeout passed first.
    case timedOut

    /// The outcome of a session-level failure.
    init(_ error: RpcError) {
        switch error {
        case .remote(let type, let message): self = .rejected(name: type, message: message)
        case .timeout: self = .timedOut
        default: self = .failed(error.description)
        }
    }
}

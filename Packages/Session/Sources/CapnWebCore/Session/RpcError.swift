/// Why a call, a property read or a session failed.
///
/// ```swift
/// do {
///     let n: Int = try await session.api.square(5)
/// } catch let error as RpcError {
///     switch error {
///     case .remote(let type, let message): print("server threw \(type): \(message)")
///     case .connectionLost(let underlying): print("lost: \(String(describing: underlying))")
///     case .timeout, .cancelled, .invalidResponse, .invalidArgument: print(error)
///     }
/// }
/// ```
public enum RpcError: Error, Sendable, CustomStringConvertible {
    /// The peer rejected the call; `type` is the error's name (`Error`, `TypeError`, an
    /// application name such as `NotFound`). The whole value, with its properties, is in
    /// ``Ref/settle()``.
    case remote(type: String, message: String)
    /// The session ended before the answer arrived: the transport closed or failed, the peer
    /// aborted, or this side aborted after a protocol violation. `underlying` says which.
    case connectionLost((any Error)?)
    /// The configured timeout passed before the answer arrived.
    case timeout
    /// The awaiting task was cancelled; the session released the result and sends nothing more
    /// for it.
    case cancelled
    /// The answer arrived but cannot be turned into the requested Swift type, or broke the
    /// protocol.
    case invalidResponse(String)
    /// A value given to the session cannot be sent (not encodable, or a bad URL or setting).
    case invalidArgument(String)

    /// A one-line description, e.g. `remote TypeError: bad`.
    public var description: String {
        switch self {
        case .remote(let type, let message): "remote \(type): \(message)"
        case .connectionLost(let underlying?): "connection lost: \(underlying)"
        case .connectionLost(nil): "connection lost"
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        case .invalidResponse(let detail): "invalid response: \(detail)"
        case .invalidArgument(let detail): "invalid argument: \(detail)"
        }
    }
}

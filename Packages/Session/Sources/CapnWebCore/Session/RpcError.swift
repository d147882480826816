/// Why a call, a property read or a session failed.
///
/// Exactly the five cases of the Cap'n Web Swift API, so a `switch` over them is exhaustive:
///
/// ```swift
/// do {
///     let n: Int = try await session.api.square(5)
/// } catch let error as RpcError {
///     switch error {
///     case .remote(let type, let message): print("server threw \(type): \(message)")
///     case .connectionLost(let underlying): print("lost: \(String(describing: underlying))")
///     case .timeout, .cancelled, .invalidResponse: print(error)
///     }
/// }
/// ```
///
/// Local misuse has no case of its own; it is reported where the reference implementation
/// reports it:
/// - A value that cannot be sent (not encodable, an integer beyond `Int64`, a value recorded
///   in a `map` closure used outside it) rejects the call locally, before anything is sent,
///   with ``remote(type:message:)`` of type `TypeError`, as the reference implementation
///   rejects it; a local limit (the import table is full) with type `RangeError`.
/// - A URL or connect setting that cannot be used (another scheme, no host, text that is not a
///   URL, a pinned certificate that cannot be read) fails the connect with
///   ``connectionLost(_:)`` whose underlying `TransportError` has the code
///   `TransportError.Code.invalidTarget` or
///   `TransportError.Code.tlsConfigurationInvalid`: no connection is made.
public enum RpcError: Error, Sendable, CustomStringConvertible {
    /// The peer rejected the call (or this side did, before sending it: see above); `type` is
    /// the error's name (`Error`, `TypeError`, an
    /// application name such as `NotFound`). The whole value, with its properties, is in
    /// ``Ref/settle()``.
    case remote(type: String, message: String)
    /// The session ended before the answer arrived, or the connection could not be made: the
    /// transport closed or failed, the peer aborted, this side aborted after a protocol
    /// violation, or the URL or a setting cannot be used. `underlying` says which.
    case connectionLost((any Error)?)
    /// The configured timeout passed before the answer arrived.
    case timeout
    /// The awaiting task was cancelled; the session released the result and sends nothing more
    /// for it.
    case cancelled
    /// The answer arrived but cannot be turned into the requested Swift type, or broke the
    /// protocol.
    case invalidResponse(String)

    /// A one-line description, e.g. `remote TypeError: bad`.
    public var description: String {
        switch self {
        case .remote(let type, let message): "remote \(type): \(message)"
        case .connectionLost(let underlying?): "connection lost: \(underlying)"
        case .connectionLost(nil): "connection lost"
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        case .invalidResponse(let detail): "invalid response: \(detail)"
        }
    }
}

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Why an RpcDo call failed.
///
/// Remote errors are mapped by their name: `NotFound` becomes ``notFound(_:)``,
/// `NotImplemented` ``notImplemented(_:)``, `Unauthenticated` and `AuthenticationError`
/// ``authenticationFailed(_:)``, `RateLimitExceeded` ``rateLimitExceeded(retryAfter:)`` (with
/// the error's `retryAfter` property, in seconds), and any other name ``remote(type:message:)``.
///
/// ```swift
/// do {
///     let user: User = try await client.api.users.get(id: "42")
/// } catch let error as RpcError {
///     if case .notFound = error { print("no such user") }
/// }
/// ```
public enum RpcError: Error, Sendable, Equatable {
    /// The server rejected the call with an error named `type`.
    case remote(type: String, message: String)
    /// The connection was lost (or could not be used) before the answer arrived.
    case connectionLost(String?)
    /// The call's timeout passed before the answer arrived.
    case timeout
    /// The awaiting task was cancelled.
    case cancelled
    /// The answer arrived but is not what was asked for (it does not decode as the expected type).
    case invalidResponse(String)
    /// A value given to the client cannot be used: a bad URL, an argument that cannot be sent.
    case invalidArgument(String)
    /// The server said the resource does not exist (`NotFound`).
    case notFound(String)
    /// The server does not implement the method (`NotImplemented`).
    case notImplemented(String)
    /// The server refused the caller's credentials (`Unauthenticated`, `AuthenticationError`).
    case authenticationFailed(String)
    /// The server is rate limiting the caller; `retryAfter` is the wait it asked for, in seconds.
    case rateLimitExceeded(retryAfter: TimeInterval?)
}

extension RpcError: CustomStringConvertible {
    /// A one-line description, e.g. `not found: todo 7`.
    public var description: String {
        switch self {
        case .remote(let type, let message): "remote \(type): \(message)"
        case .connectionLost(let reason?): "connection lost: \(reason)"
        case .connectionLost(nil): "connection lost"
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        case .invalidResponse(let detail): "invalid response: \(detail)"
        case .invalidArgument(let detail): "invalid argument: \(detail)"
        case .notFound(let detail): "not found: \(detail)"
        case .notImplemented(let detail): "not implemented: \(detail)"
        case .authenticationFailed(let detail): "authentication failed: \(detail)"
        case .rateLimitExceeded(let retryAfter?): "rate limit exceeded, retry after \(retryAfter) s"
        case .rateLimitExceeded(nil): "rate limit exceeded"
        }
    }

    /// Whether the retry rule considers this error transient: a timeout, a lost connection or a
    /// rate limit.
    public var isTransient: Bool {
        switch self {
        case .timeout, .connectionLost, .rateLimitExceeded: true
        default: false
        }
    }
}

extension RpcError: LocalizedError {
    /// A sentence for people, e.g. `The server has no such resource: todo 7.`; SwiftUI's
    /// `error.localizedDescription` shows it.
    public var errorDescription: String? {
        switch self {
        case .remote(let type, let message):
            "The server failed the call (\(type)): \(message)"
        case .connectionLost(let reason?):
            "The connection to the server was lost: \(reason)"
        case .connectionLost(nil):
            "The connection to the server was lost."
        case .timeout:
            "The server did not answer in time."
        case .cancelled:
            "The call was cancelled."
        case .invalidResponse(let detail):
            "The server's answer could not be read: \(detail)"
        case .invalidArgument(let detail):
            "A value given to the client cannot be used: \(detail)"
        case .notFound(let detail):
            "The server has no such resource: \(detail)"
        case .notImplemented(let detail):
            "The server does not implement this: \(detail)"
        case .authenticationFailed(let detail):
            "The server refused the credentials: \(detail)"
        case .rateLimitExceeded(let retryAfter?):
            "Too many calls; the server asks to wait \(retryAfter) seconds before trying again."
        case .rateLimitExceeded(nil):
            "Too many calls; the server asks to slow down."
        }
    }

    /// What can be done about it, where there is something: wait, reconnect, sign in again.
    public var recoverySuggestion: String? {
        switch self {
        case .connectionLost, .timeout: "Check the network connection and try again."
        case .authenticationFailed: "Sign in again."
        case .rateLimitExceeded: "Wait a moment and try again."
        default: nil
        }
    }
}

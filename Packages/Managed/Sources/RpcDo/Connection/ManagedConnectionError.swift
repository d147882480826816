public import RpcWire

/// Why a managed connection could not do what was asked.
public struct ManagedConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// Not connected, and the offline policy is ``OfflinePolicy/fail`` (or the connection
        /// was never started, or gave up reconnecting).
        case notConnected
        /// The offline queue already holds its limit.
        case offlineQueueFull
        /// The request's timeout passed.
        case timeout
        /// The connection dropped while the request was in flight.
        case connectionLost
        /// The connection was closed by its owner.
        case closed
        /// The task was cancelled.
        case cancelled
        /// The peer answered with an error (for requests), or sent something unusable.
        case remote
        /// The request could not be encoded or sent.
        case invalidRequest
    }

    /// The kind of failure.
    public var code: Code
    /// A description for people.
    public var message: String
    /// The peer's error object, for ``Code/remote``.
    public var remote: JSONRPCErrorObject?

    /// Creates an error.
    public init(_ code: Code, _ message: String, remote: JSONRPCErrorObject? = nil) {
        self.code = code
        self.message = message
        self.remote = remote
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

import RpcTransport

/// The error a ``ManagedChannel``'s calls fail with: the protocol's own error type, which says
/// how the channel's own failures read in it and which failures are worth another attempt.
///
/// ```swift
/// extension MyProtocolError: ManagedFailure {
///     static func channel(_ error: ManagedConnectionError) -> Self { .connection(error) }
///     static func local(_ error: any Error) -> Self { .client("\(error)") }
///     var isTransient: Bool { if case .connection = self { true } else { false } }
/// }
/// ```
public protocol ManagedFailure: Error, Sendable {
    /// The channel's own failure (timeout, connection lost, not connected, offline queue full,
    /// closed, cancelled) as this type.
    static func channel(_ error: ManagedConnectionError) -> Self
    /// A failure of this process that is none of the channel's: an interceptor's own error, a
    /// request that cannot be encoded. Never reported as the peer's.
    static func local(_ error: any Error) -> Self
    /// Whether an attempt that failed with this error may be made again on the next link (a
    /// connection-level failure, never an answer); the call's idempotency decides for an
    /// attempt that reached the transport.
    var isTransient: Bool { get }
    /// The wait the peer asked for before another attempt, if any.
    var retryAfter: Duration? { get }
}

extension ManagedFailure {
    /// No hint: the backoff decides.
    public var retryAfter: Duration? { nil }

    /// Runs `operation` until `deadline` in the stack's one timeout race (``Deadline``):
    /// the channel's `timeout` when the deadline passes first, `cancelled` when the calling task
    /// is cancelled first. For work the managed layer cannot end from outside (a call awaited on
    /// a Cap'n Web session, the wait for a link); a wait for an answer keeps its deadline on a
    /// ``DeadlineTimer`` instead (``AttemptDeadline``).
    public static func within<T: Sendable>(
        _ timeout: Duration,
        until deadline: ContinuousClock.Instant? = nil,
        _ operation: @escaping @Sendable () async throws(Self) -> T
    ) async throws(Self) -> T {
        do {
            guard let value = try await Deadline.race(until: deadline ?? .now.advanced(by: timeout), operation) else {
                if Task.isCancelled { throw Self.channel(ManagedConnectionError(.cancelled, "cancelled")) }
                throw Self.channel(ManagedConnectionError(.timeout, "no answer within \(timeout)"))
            }
            return value
        } catch let error as Self {
            throw error
        } catch {
            throw Self.channel(ManagedConnectionError(.cancelled, "cancelled"))
        }
    }
}

extension ManagedConnectionError: ManagedFailure {
    /// The error itself.
    public static func channel(_ error: ManagedConnectionError) -> ManagedConnectionError { error }

    /// ``ManagedConnectionError/Code/invalidRequest`` with the error's description.
    public static func local(_ error: any Error) -> ManagedConnectionError {
        if let error = error as? ManagedConnectionError { return error }
        return ManagedConnectionError(.invalidRequest, "\(error)")
    }

    /// `connectionLost`, `timeout` and `notConnected` (while the connection still tries).
    public var isTransient: Bool {
        code == .connectionLost || code == .timeout || code == .notConnected
    }

    /// A connection's failure as the managed layer reports it.
    public init(transport error: TransportError) {
        switch error.code {
        case .notConnected: self.init(.notConnected, error.message)
        case .offlineQueueFull: self.init(.offlineQueueFull, error.message)
        case .cancelled: self.init(.cancelled, error.message)
        case .closed where error.closeCode == nil: self.init(.closed, error.message)
        case .closed, .keepaliveTimeout, .ioError: self.init(.connectionLost, error.message)
        default: self.init(.invalidRequest, error.message)
        }
    }
}

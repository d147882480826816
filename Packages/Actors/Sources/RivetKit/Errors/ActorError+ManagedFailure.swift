public import RpcDo

extension ActorError: ManagedFailure {
    /// The managed channel's own failure in the client's catalogue: `timeout` is
    /// `client.action_timeout`, `connectionLost` is `client.connection_lost`, `notConnected` and
    /// `offlineQueueFull` are `client.not_connected`, `closed` is `client.disposed` (the
    /// connection's owner closed it), `cancelled` is `client.cancelled`; any other is
    /// `client.internal_error`. The channel's message is kept.
    public static func channel(_ error: ManagedConnectionError) -> ActorError {
        switch error.code {
        case .timeout: ActorError(.clientActionTimeout, error.message)
        case .connectionLost: ActorError(.clientConnectionLost, error.message)
        case .notConnected, .offlineQueueFull: ActorError(.clientNotConnected, error.message)
        case .closed: ActorError(.clientDisposed, error.message)
        case .cancelled: ActorError(.clientCancelled, error.message)
        default: ActorError(.clientInternalError, error.message)
        }
    }

    /// A failure of this process (an interceptor's own error, say) as `client.internal_error`
    /// with its description: local, never one of the server's groups.
    public static func local(_ error: any Error) -> ActorError {
        ActorError(.clientInternalError, "\(error)")
    }

    /// Whether an attempt that failed with this error may be made again: only the
    /// connection-level client codes `client.connection_lost` and `client.not_connected`. An
    /// error an actor answered, and a time limit that passed, never are.
    public var isTransient: Bool {
        errorCode == .clientConnectionLost || errorCode == .clientNotConnected
    }
}

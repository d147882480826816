/// Where a supervised connection was when an attempt or a link failed: what a
/// ``RetryDecision`` is made with.
public struct ConnectionFailureContext: Sendable {
    /// The step that failed.
    public enum Stage: Sendable, Hashable {
        /// Opening the transport (the factory threw or timed out).
        case opening
        /// The protocol's ready handshake on an open transport (it threw, timed out, or the
        /// transport closed during it).
        case handshaking
        /// A ready link was lost.
        case connected
    }

    /// The step that failed.
    public var stage: Stage
    /// The attempt that failed: 0 for the first attempt of a start, then the retry's number;
    /// 0 for a ready link that was lost.
    public var attempt: Int
    /// Whether a link was ready since the connection was started (or an explicit reconnect is
    /// under way).
    public var everConnected: Bool
    /// How the transport closed, when the failure is its closing (during the handshake or once
    /// ready): the peer's close code and reason, which a protocol may carry its own error in.
    public var closure: TransportClosure?

    /// Creates a context.
    public init(stage: Stage, attempt: Int, everConnected: Bool, closure: TransportClosure? = nil) {
        self.stage = stage
        self.attempt = attempt
        self.everConnected = everConnected
        self.closure = closure
    }
}

import RpcTransport

/// The deadline of one attempt of a managed call: how long it may still wait, and the means to
/// end a wait when the time is up without a task of its own, on the channel's
/// ``RpcTransport/DeadlineTimer`` (see ``ManagedChannel/perform(_:isSafeToRetry:expiring:)``).
///
/// ```swift
/// let expiry = deadline.makeExpiry()
/// defer { expiry.disarm() }
/// return try await withCheckedThrowingContinuation { continuation in
///     waiters[id] = continuation
///     expiry.arm { failure in waiters.removeValue(forKey: id)?.resume(throwing: failure) }
/// }
/// ```
public struct AttemptDeadline<Failure: ManagedFailure>: Sendable {
    /// When the attempt's time is up.
    public let instant: ContinuousClock.Instant
    /// The time the call allows each attempt.
    public let timeout: Duration
    let timer: DeadlineTimer

    init(timeout: Duration, timer: DeadlineTimer) {
        self.timeout = timeout
        self.instant = ContinuousClock.now.advanced(by: timeout)
        self.timer = timer
    }

    /// The failure an attempt ends with when its time is up: the channel's `timeout`.
    public var failure: Failure {
        Failure.channel(ManagedConnectionError(.timeout, "no answer within \(timeout)"))
    }

    /// An expiry to arm once the attempt waits.
    public func makeExpiry() -> Expiry {
        Expiry(deadline: self, id: timer.makeID())
    }

    /// Ends one wait of an attempt when its deadline passes.
    public struct Expiry: Sendable {
        let deadline: AttemptDeadline
        let id: UInt64

        /// Runs `expire` with ``AttemptDeadline/failure`` once the deadline passes (soon, from
        /// the timer, when it passed already), unless ``disarm()`` runs first. Arm it after the
        /// wait is registered, so that `expire` finds it; `expire` must do nothing when the
        /// wait has ended meanwhile.
        public func arm(_ expire: @escaping @Sendable (Failure) -> Void) {
            let deadline = self.deadline
            deadline.timer.arm(id, until: deadline.instant) { expire(deadline.failure) }
        }

        /// Disarms it: `expire` does not run from now on.
        public func disarm() {
            deadline.timer.disarm(id)
        }
    }
}

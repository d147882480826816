import RpcTransport

/// The deadline of one attempt of a managed call: how long it may still wait, and the means to
/// end a wait when the time is up without a task of its own, on the channel's
/// ``DeadlineTimer`` (see ``ManagedChannel/perform(_:isSafeToRetry:expiring:)``).
///
/// ```swift
/// var armed: AttemptDeadline<Failure>.Armed?
/// defer { armed?.disarm() }
/// return try await withCheckedThrowingContinuation { continuation in
///     waiters.register(id, continuation)
///     armed = deadline.arm(waiters, tag: id)   // waiters: some TaggedExpiringWait
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

    /// The failure an attempt that allows `timeout` ends with when its time is up.
    public static func failure(after timeout: Duration) -> Failure {
        Failure.channel(ManagedConnectionError(.timeout, "no answer within \(timeout)"))
    }

    /// Arms the deadline for one wait of `waits`, which is told `tag` when it passes first
    /// (soon, from the timer, when it passed already), with no object made for it: for a
    /// connection that keeps its waits by id. Arm it once the wait is registered; disarm it
    /// when the wait ends.
    public func arm(_ waits: any TaggedExpiringWait, tag: UInt64) -> Armed {
        Armed(timer: timer, id: timer.arm(until: instant, waits, tag: tag))
    }

    /// A deadline armed by ``arm(_:tag:)``.
    public struct Armed: Sendable {
        let timer: DeadlineTimer
        let id: UInt64?

        /// Disarms it: the wait is not told from now on.
        public func disarm() {
            if let id { timer.disarm(id) }
        }
    }
}

import RpcTransport
import Synchronization

/// The deadline of one attempt of a managed call: how long it may still wait, and the means to
/// end a wait when the time is up without a task of its own, on the channel's
/// ``DeadlineTimer`` (see ``ManagedChannel/perform(_:isSafeToRetry:expiring:)``).
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
        Self.failure(after: timeout)
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

    /// An expiry to arm once the attempt waits.
    public func makeExpiry() -> Expiry {
        Expiry(deadline: self)
    }

    /// Ends one wait of an attempt when its deadline passes.
    public final class Expiry: ExpiringWait {
        private let deadline: AttemptDeadline
        /// The id it is armed under; 0 while not armed.
        private let armed = Atomic<UInt64>(0)
        /// What ends the wait, once armed.
        private let ending = Mutex<(@Sendable (Failure) -> Void)?>(nil)

        init(deadline: AttemptDeadline) {
            self.deadline = deadline
        }

        /// Runs `expire` with ``AttemptDeadline/failure`` once the deadline passes (soon, from
        /// the timer, when it passed already), unless ``disarm()`` runs first. Arm it once,
        /// after the wait is registered, so that `expire` finds it; `expire` must do nothing
        /// when the wait has ended meanwhile.
        public func arm(_ expire: @escaping @Sendable (Failure) -> Void) {
            ending.withLock { $0 = expire }
            guard let id = deadline.timer.arm(until: deadline.instant, self) else { return }
            armed.store(id, ordering: .releasing)
        }

        /// Disarms it: `expire` does not run from now on.
        public func disarm() {
            let id = armed.exchange(0, ordering: .acquiringAndReleasing)
            if id != 0 { deadline.timer.disarm(id) }
            ending.withLock { $0 = nil }
        }

        /// The deadline passed: runs what was armed, with ``AttemptDeadline/failure``.
        public func expire() {
            guard let expire = ending.withLock({ $0.take() }) else { return }
            expire(deadline.failure)
        }
    }
}

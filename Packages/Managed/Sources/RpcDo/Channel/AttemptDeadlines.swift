import Synchronization

/// One channel's timer for the deadlines of its attempts: one sleeping task for all of them,
/// where a timeout race would start a task group and two tasks per attempt.
///
/// An attempt that waits for something it can resume from outside (an answer matched by id)
/// arms its deadline with the closure that ends that wait; the timer runs it when the deadline
/// passes first. The timer task runs only while something is armed, and is cancelled when the
/// channel goes away.
final class AttemptDeadlines: Sendable {
    typealias Expire = @Sendable () -> Void

    private struct State {
        var schedule = DeadlineSchedule<Expire>()
        var timer: Task<Void, Never>?
        var timerID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let ids = Atomic<UInt64>(0)

    init() {}

    deinit {
        state.withLock { $0.timer }?.cancel()
    }

    /// How many deadlines are armed.
    var armedCount: Int { state.withLock { $0.schedule.count } }

    /// A new id to arm under.
    func makeID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Runs `expire` once `deadline` passes, unless ``disarm(_:)`` runs first.
    func arm(_ id: UInt64, until deadline: ContinuousClock.Instant, _ expire: @escaping Expire) {
        let replaced = state.withLock { state -> Task<Void, Never>? in
            guard let wake = state.schedule.arm(id, until: deadline, expire) else { return nil }
            let running = state.timer
            state.timer = startTimer(until: wake, state: &state)
            return running
        }
        replaced?.cancel()
    }

    /// Disarms `id`.
    func disarm(_ id: UInt64) {
        state.withLock { $0.schedule.disarm(id) }
    }

    private func startTimer(until wake: ContinuousClock.Instant, state: inout State) -> Task<Void, Never> {
        state.timerID &+= 1
        let timerID = state.timerID
        return Task { [weak self] in
            var wake = wake
            while true {
                do {
                    try await Task.sleep(until: wake, clock: .continuous)
                } catch {
                    return  // replaced by an earlier one, or the channel went away
                }
                guard let next = self?.fire(timerID) else { return }
                wake = next
            }
        }
    }

    /// The timer `timerID` woke: runs what passed, and returns when it wakes next (`nil`: it
    /// ends).
    private func fire(_ timerID: UInt64) -> ContinuousClock.Instant? {
        let (expired, next) = state.withLock { state -> ([Expire], ContinuousClock.Instant?) in
            guard state.timerID == timerID else { return ([], nil) }
            let fired = state.schedule.fire(at: .now)
            if fired.next == nil { state.timer = nil }
            return fired
        }
        for expire in expired { expire() }
        return next
    }
}

/// The deadline of one attempt of a managed call: how long it may still wait, and the means to
/// end a wait when the time is up without a task of its own (see
/// ``ManagedChannel/perform(_:isSafeToRetry:expiring:)``).
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
    let timer: AttemptDeadlines

    init(timeout: Duration, timer: AttemptDeadlines) {
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

        /// Runs `expire` with ``AttemptDeadline/failure`` once the deadline passes (at once, from
        /// the timer, when it passed already), unless ``disarm()`` runs first. Arm it after the
        /// wait is registered, so that `expire` finds it; `expire` must be a no-op when the
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

import Synchronization

/// The one timer of the stack for deadlines of waits that can be ended from outside (an answer
/// awaited by id, a settlement): one sleeping task for every deadline armed on it, where a
/// timeout race (``Deadline``) starts a task group and two tasks per wait.
///
/// A wait arms its deadline with the closure that ends it; the timer runs that closure when the
/// deadline passes first (at most a few milliseconds late), unless the wait disarmed it. The
/// timer's task runs only while something is armed, and is cancelled by ``close()`` or when the
/// timer goes away. A Cap'n Web session keeps its call timeout on one, a managed channel the
/// deadlines of its attempts.
///
/// ```swift
/// let timer = DeadlineTimer()
/// let id = timer.makeID()
/// let answer = try await withCheckedThrowingContinuation { continuation in
///     waiters[id] = continuation
///     timer.arm(id, until: .now + .seconds(5)) { waiters.take(id)?.resume(throwing: TimeoutError()) }
/// }
/// timer.disarm(id)
/// ```
public final class DeadlineTimer: Sendable {
    /// What runs when a deadline passes.
    public typealias Expire = @Sendable () -> Void

    private struct State {
        var schedule = DeadlineSchedule<Expire>()
        var timer: Task<Void, Never>?
        var timerID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let ids = Atomic<UInt64>(0)

    /// Creates a timer; its task starts with the first deadline armed.
    public init() {}

    deinit {
        state.withLock { $0.timer }?.cancel()
    }

    /// How many deadlines are armed.
    public var armedCount: Int { state.withLock { $0.schedule.count } }

    /// How many deadlines the timer stores, disarmed ones not yet shed included: at most twice
    /// ``armedCount``, plus 64.
    public var storedCount: Int { state.withLock { $0.schedule.storedCount } }

    /// A new id to arm under, unique on this timer.
    public func makeID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Runs `expire` once `deadline` passes (from the timer's task; soon, when it has passed
    /// already), unless ``disarm(_:)`` runs first. `expire` must do nothing when the wait it
    /// ends is over.
    ///
    /// - Returns: `false` (and nothing is armed) once the timer is closed.
    @discardableResult
    public func arm(_ id: UInt64, until deadline: ContinuousClock.Instant, _ expire: @escaping Expire) -> Bool {
        let (armed, replaced) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            guard !state.closed else { return (false, nil) }
            guard let wake = state.schedule.arm(id, until: deadline, expire) else { return (true, nil) }
            let running = state.timer
            state.timer = startTimer(until: wake, state: &state)
            return (true, running)
        }
        replaced?.cancel()
        return armed
    }

    /// Disarms `id`: its `expire` does not run from now on.
    public func disarm(_ id: UInt64) {
        state.withLock { $0.schedule.disarm(id) }
    }

    /// Stops the timer: nothing armed runs, and nothing more can be armed.
    public func close() {
        let timer = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            state.schedule.removeAll()
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    private func startTimer(until wake: ContinuousClock.Instant, state: inout State) -> Task<Void, Never> {
        state.timerID &+= 1
        let timerID = state.timerID
        // Owned by the timer: replaced (and cancelled) by an earlier wake, cancelled by close
        // and deinit, and ended once nothing is armed.
        return Task { [weak self] in
            var wake = wake
            while true {
                do {
                    try await Task.sleep(until: wake, clock: .continuous)
                } catch {
                    return
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
            guard state.timerID == timerID, !state.closed else { return ([], nil) }
            let fired = state.schedule.fire(at: .now)
            if fired.next == nil { state.timer = nil }
            return fired
        }
        for expire in expired { expire() }
        return next
    }
}

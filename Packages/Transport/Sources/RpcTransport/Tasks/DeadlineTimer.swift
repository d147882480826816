import Synchronization

/// The one timer of the stack for deadlines of waits that can be ended from outside (an answer
/// awaited by id, a settlement): one sleeping task for every deadline armed on it, where a
/// timeout race (``Deadline``) starts a task group and two tasks per wait.
///
/// A wait arms its deadline with itself (an ``ExpiringWait``); when the deadline passes
/// first, the timer calls its ``ExpiringWait/expire()`` (at most a few milliseconds late),
/// unless the wait disarmed it. Deadlines armed in order (one timeout for all) cost no hashing
/// and no allocation. The timer's task runs only while something is armed, and is cancelled by
/// ``close()`` or when the timer goes away. A Cap'n Web session keeps its call timeout on one,
/// a managed channel the deadlines of its attempts.
///
/// ```swift
/// let timer = DeadlineTimer()
/// let armed = timer.arm(after: .seconds(30), waiter)   // waiter: some ExpiringWait
/// let answer = await waiter.value
/// if let armed { timer.disarm(armed) }
/// ```
public final class DeadlineTimer: Sendable {
    /// What a timer holds for each deadline.
    public typealias Payload = any ExpiringWait

    /// A deadline's wait, and the tag it is told when it is tagged.
    private enum Entry {
        case wait(any ExpiringWait)
        case tagged(any TaggedExpiringWait, UInt64)

        func expire() {
            switch self {
            case .wait(let wait): wait.expire()
            case .tagged(let wait, let tag): wait.expire(tag: tag)
            }
        }
    }

    private struct State {
        var schedule = DeadlineSchedule<Entry>()
        var timer: Task<Void, Never>?
        var timerID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Creates a timer; its task starts with the first deadline armed.
    public init() {}

    deinit {
        state.withLock { $0.timer }?.cancel()
    }

    /// How many deadlines are armed.
    public var armedCount: Int { state.withLock { $0.schedule.count } }

    /// How many deadlines the timer stores, disarmed ones not yet shed included.
    public var storedCount: Int { state.withLock { $0.schedule.storedCount } }

    /// Arms `payload` until `deadline` (expired soon, from the timer's task, when it has passed
    /// already).
    ///
    /// - Returns: The id to pass to ``disarm(_:)`` (never 0), or `nil` (nothing armed) once the
    ///   timer is closed.
    public func arm(until deadline: ContinuousClock.Instant, _ payload: Payload) -> UInt64? {
        arm(.wait(payload)) { _ in deadline }
    }

    /// Arms `wait` until `deadline`, to be told `tag` when it passes: one object (a connection,
    /// a channel) for many deadlines, with no object made per deadline.
    ///
    /// - Returns: The id to pass to ``disarm(_:)`` (never 0), or `nil` (nothing armed) once the
    ///   timer is closed.
    public func arm(until deadline: ContinuousClock.Instant, _ wait: any TaggedExpiringWait, tag: UInt64) -> UInt64? {
        arm(.tagged(wait, tag)) { _ in deadline }
    }

    /// Arms `payload` until `timeout` from now, with the clock read under the timer's lock, so
    /// that one timeout for everything keeps its deadlines in order.
    ///
    /// - Returns: As ``arm(until:_:)``.
    public func arm(after timeout: Duration, _ payload: Payload) -> UInt64? {
        arm(.wait(payload)) { now in now.advanced(by: timeout) }
    }

    /// Disarms `id`: its wait is not expired from now on.
    public func disarm(_ id: UInt64) {
        state.withLock { $0.schedule.disarm(id) }
    }

    /// Stops the timer: nothing armed expires, and nothing more can be armed.
    public func close() {
        let timer = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            state.schedule.removeAll()
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    private func arm(_ payload: Entry, deadline: (ContinuousClock.Instant) -> ContinuousClock.Instant) -> UInt64? {
        let (id, replaced) = state.withLock { state -> (UInt64?, Task<Void, Never>?) in
            guard !state.closed else { return (nil, nil) }
            let armed = state.schedule.arm(until: deadline(.now), payload)
            guard let wake = armed.wake else { return (armed.id, nil) }
            let running = state.timer
            state.timer = startTimer(until: wake, state: &state)
            return (armed.id, running)
        }
        replaced?.cancel()
        return id
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

    /// The timer `timerID` woke: expires what passed, and returns when it wakes next (`nil`:
    /// it ends).
    private func fire(_ timerID: UInt64) -> ContinuousClock.Instant? {
        let (expired, next) = state.withLock { state -> ([Entry], ContinuousClock.Instant?) in
            guard state.timerID == timerID, !state.closed else { return ([], nil) }
            let fired = state.schedule.fire(at: .now)
            if fired.next == nil { state.timer = nil }
            return fired
        }
        for wait in expired { wait.expire() }
        return next
    }
}

/// A wait a ``DeadlineTimer`` can end: armed on the timer, it is expired when its deadline
/// passes first.
public protocol ExpiringWait: AnyObject, Sendable {
    /// Ends the wait because its time is up (from the timer's task, outside its lock); does
    /// nothing when the wait is over already.
    func expire()
}

/// A wait, or a set of waits, a ``DeadlineTimer`` can end by tag: armed with a tag (an id the
/// waiter chose), it is told that tag when that deadline passes first.
public protocol TaggedExpiringWait: AnyObject, Sendable {
    /// Ends the wait `tag` names because its time is up (from the timer's task, outside its
    /// lock); does nothing when that wait is over already.
    func expire(tag: UInt64)
}

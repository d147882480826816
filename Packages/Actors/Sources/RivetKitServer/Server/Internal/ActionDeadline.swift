import RivetKit
import RpcTransport
import Synchronization

/// The outcome of one action raced against its `actionTimeout` on the server's
/// ``DeadlineTimer``: whichever comes first, the action's answer or the deadline,
/// settles it; the loser changes nothing. At the deadline the action is cancelled (it may still
/// run until it next checks), and its caller is answered `actor.action_timed_out` at once.
final class ActionDeadline: ExpiringWait {
    /// What a caller gets when the deadline passes first.
    static var timedOut: ActorError { ActorError(.actorActionTimedOut, "Action timed out") }

    private struct State {
        var outcome: Result<JSONValue, ActorError>?
        var waiter: CheckedContinuation<Result<JSONValue, ActorError>, Never>?
        var cancel: (@Sendable () -> Void)?
        var expired = false
        /// The deadline armed on the timer by ``watch(until:on:cancel:)``, until settled.
        var armed: (id: UInt64, timer: DeadlineTimer)?
    }

    private let state = Mutex(State())
    private let onExpire: (@Sendable () -> Void)?

    /// A deadline that runs `onExpire` when it passes first (e.g. sends the timeout's `Error`
    /// frame on a realtime connection).
    init(onExpire: (@Sendable () -> Void)? = nil) {
        self.onExpire = onExpire
    }

    /// Settles with the timeout, cancels the action and wakes its waiter, unless it has settled.
    func expire() {
        let (won, waiter, cancel) = state.withLock { state
            -> (Bool, CheckedContinuation<Result<JSONValue, ActorError>, Never>?, (@Sendable () -> Void)?) in
            guard state.outcome == nil else { return (false, nil, nil) }
            state.outcome = .failure(Self.timedOut)
            state.expired = true
            defer {
                state.waiter = nil
                state.cancel = nil
            }
            return (true, state.waiter, state.cancel)
        }
        guard won else { return }
        onExpire?()
        waiter?.resume(returning: .failure(Self.timedOut))
        cancel?()
    }

    /// Settles with the action's outcome; returns `false` when the deadline passed first (the
    /// caller has been answered already).
    @discardableResult
    func settle(_ outcome: Result<JSONValue, ActorError>) -> Bool {
        let (won, waiter, armed) = state.withLock { state
            -> (Bool, CheckedContinuation<Result<JSONValue, ActorError>, Never>?, (id: UInt64, timer: DeadlineTimer)?) in
            guard state.outcome == nil else { return (false, nil, nil) }
            state.outcome = outcome
            state.cancel = nil
            defer {
                state.waiter = nil
                state.armed = nil
            }
            return (true, state.waiter, state.armed)
        }
        if let armed { armed.timer.disarm(armed.id) }
        waiter?.resume(returning: outcome)
        return won
    }

    /// Arms the deadline at `deadline` on `timer`, with how to cancel the action, unless it has
    /// settled already: an action that answered before its task first suspended needs no
    /// deadline. Settling disarms it.
    func watch(until deadline: ContinuousClock.Instant, on timer: DeadlineTimer, cancel: @escaping @Sendable () -> Void) {
        let pending = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            state.cancel = cancel
            return true
        }
        guard pending, let id = timer.arm(until: deadline, self) else { return }
        let settled = state.withLock { state -> Bool in
            guard state.outcome == nil else { return true }
            state.armed = (id, timer)
            return false
        }
        // Settled while it was being armed: nothing is left to time.
        if settled { timer.disarm(id) }
    }

    /// How to cancel the action; called at once when the deadline has passed already.
    func onCancel(_ cancel: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard !state.expired else { return true }
            if state.outcome == nil { state.cancel = cancel }
            return false
        }
        if now { cancel() }
    }

    /// The outcome, once settled.
    func value() async -> Result<JSONValue, ActorError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<JSONValue, ActorError>, Never>) in
            let outcome = state.withLock { state -> Result<JSONValue, ActorError>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }
}

import Synchronization

/// Who hears an ``ActorObservable``'s errors: how many subscribe to
/// ``ActorObservable/newErrors`` now, and the error set while nobody did, kept (while it is
/// current) for the next subscriber, so that an error found as the observable was made, before
/// its view subscribed (a configuration error), is still given once.
final class ErrorInbox: Sendable {
    private struct State {
        var subscribers = 0
        var held: ActorError?
    }

    private let state = Mutex(State())

    /// Whether `error` is to be sent now (somebody subscribes); otherwise it is held, in place
    /// of any held before.
    func deliverOrHold(_ error: ActorError) -> Bool {
        state.withLock { state in
            guard state.subscribers == 0 else { return true }
            state.held = error
            return false
        }
    }

    /// The held error, for a subscriber that comes now; nobody else gets it.
    func takeHeld() -> [ActorError] {
        state.withLock { state in
            defer { state.held = nil }
            return state.held.map { [$0] } ?? []
        }
    }

    /// Forgets the held error: it is over (the connection connected again).
    func dropHeld() {
        state.withLock { $0.held = nil }
    }

    /// A subscriber came.
    func subscribed() {
        state.withLock { $0.subscribers += 1 }
    }

    /// A subscriber went.
    func unsubscribed() {
        state.withLock { $0.subscribers = max($0.subscribers - 1, 0) }
    }
}

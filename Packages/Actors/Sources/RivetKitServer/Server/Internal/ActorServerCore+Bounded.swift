import RivetKit
import Synchronization

extension ActorServerCore {
    /// Runs `body` for a request that holds `instance` (the hold is released when `body` has
    /// ended), apart from the request, so that the action timeout can answer first
    /// (`actor.action_timed_out`); past it, `body` is cancelled.
    func boundedByActionTimeout<Value: Sendable>(
        _ instance: ActorInstance, _ body: @escaping @Sendable () async throws(ActorError) -> Value
    ) async throws(ActorError) -> Value {
        let deadline = ActionDeadline()
        let outcome = RequestOutcome<Value>()
        let key = nextRequestKey()
        let started = requests.spawn(key) {
            let result: Result<JSONValue, ActorError>
            do throws(ActorError) {
                outcome.set(try await body())
                result = .success(.null)
            } catch {
                result = .failure(error)
            }
            instance.leave()
            deadline.settle(result)
        }
        guard started else {
            instance.leave()
            throw ActorError(.actorStopping, "the server is stopping")
        }
        let requests = self.requests
        deadline.onCancel { requests.cancel(key) }
        let armed = timer.arm(after: instance.actionTimeout, deadline)
        let result = await deadline.value()
        if let armed { timer.disarm(armed) }
        _ = try result.get()
        guard let value = outcome.value else {
            throw ActorError(.rivetkitInternalError, "the request ended without an answer")
        }
        return value
    }
}

/// The value a bounded request's body produced, handed from its task to the request.
private final class RequestOutcome<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)

    func set(_ value: Value) {
        stored.withLock { $0 = value }
    }

    var value: Value? { stored.withLock { $0 } }
}

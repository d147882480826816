import RivetKit
import RpcTransport

extension ActorServerCore {
    /// Runs a due schedule's action, as RivetKit runs a scheduled action: the actor is woken
    /// when it sleeps, the action runs in its queue with no client connection (its context's
    /// `connection` is one made for the run, outside `connections`, that nothing reaches), under
    /// the actor's `actionTimeout`, holding the actor awake until it ends. The schedule was
    /// removed from the store already; a failure is reported, not retried.
    func fireScheduled(_ schedule: StoredSchedule) async {
        let instance: ActorInstance
        do throws(ActorError) {
            instance = try await enteredInstance(id: schedule.actorId)
        } catch {
            configuration.reportProblem(
                "schedule \(schedule.id) of actor \(schedule.actorId): the actor could not be woken: \(error)")
            return
        }
        let info = ActorConnectionInfo(
            id: "schedule_\(schedule.id)", actorId: instance.record.id, actorName: instance.record.name,
            key: instance.record.key, namespace: instance.record.namespace, params: nil)
        let connection = ActorConn(info: info, state: nil, deliver: nil, close: nil, maxFrameSize: configuration.maxMessageSize)
        let deadline = ActionDeadline()
        let key = nextRequestKey()
        let started = requests.spawn(key) {
            let result: Result<JSONValue, ActorError>
            do throws(ActorError) {
                result = .success(try await instance.perform(schedule.action, args: schedule.args, connection: connection))
            } catch {
                result = .failure(error)
            }
            instance.leave()
            deadline.settle(result)
        }
        guard started else {
            instance.leave()
            return
        }
        let requests = self.requests
        deadline.onCancel { requests.cancel(key) }
        let armed = timer.arm(after: instance.actionTimeout, deadline)
        let result = await deadline.value()
        if let armed { timer.disarm(armed) }
        if case .failure(let error) = result {
            configuration.reportProblem(
                "schedule \(schedule.id) of actor \(schedule.actorId): \(schedule.action) failed: \(error)")
        }
    }

    /// The awake instance of an actor with a hold taken on it, woken when it sleeps.
    private func enteredInstance(id: String) async throws(ActorError) -> ActorInstance {
        for _ in 0 ..< 16 {
            let instance = try await directory.instance(id: id)
            if instance.enter() { return instance }
            guard !instance.isDestroyed else { throw ActorInstance.destroyedError(id) }
            await instance.stopped()
        }
        throw ActorError(.actorStopping, "the actor kept stopping")
    }
}

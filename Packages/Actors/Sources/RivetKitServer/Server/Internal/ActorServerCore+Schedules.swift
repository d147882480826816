import NIOHTTP1
import RivetKit
import RpcTransportNIO

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
        } catch where LeasePlacement.owner(of: error) != nil {
            // Another node holds the actor: the action runs there, as an HTTP action.
            await fireRemotely(schedule, error: error)
            return
        } catch {
            configuration.reportProblem(
                "schedule \(schedule.id) of actor \(schedule.actorId): the actor could not be woken: \(error)")
            return
        }
        let info = ActorConnectionInfo(
            id: "schedule_\(schedule.id)", actorId: instance.record.id, actorName: instance.record.name,
            key: instance.record.key, namespace: instance.record.namespace, params: nil)
        let connection = ActorConn(info: info, state: nil, deliver: nil, close: nil, maxFrameSize: configuration.maxMessageSize)
        do throws(ActorError) {
            _ = try await boundedByActionTimeout(instance) { () async throws(ActorError) -> JSONValue in
                try await instance.perform(schedule.action, args: schedule.args, connection: connection)
            }
        } catch where error.errorCode == .actorStopping {
            // The server is stopping and took no more work: nothing ran, nothing to report.
            return
        } catch {
            configuration.reportProblem(
                "schedule \(schedule.id) of actor \(schedule.actorId): \(schedule.action) failed: \(error)")
        }
    }

    /// Runs a due schedule's action on the node that holds its actor, as an HTTP action.
    private func fireRemotely(_ schedule: StoredSchedule, error: ActorError) async {
        guard let owner = LeasePlacement.owner(of: error) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "x-rivet-encoding", value: "json")
        if let token = configuration.token { headers.add(name: "x-rivet-token", value: token) }
        let request = HTTPServerRequest(
            method: .POST, uri: "/gateway/\(HTTPQuery.percentEncode(schedule.actorId))/action/\(HTTPQuery.percentEncode(schedule.action))",
            headers: headers, body: Array(RivetMessageCodec.encodeActionRequestBody(args: schedule.args).utf8))
        let response = await forward(request, to: owner, error: error)
        if !(200 ..< 300).contains(response.status) {
            configuration.reportProblem(
                "schedule \(schedule.id) of actor \(schedule.actorId): \(schedule.action) failed on node \(owner): "
                    + String(decoding: response.body, as: UTF8.self))
        }
    }
}

import Foundation
import RivetKit
import RpcTransport
import RpcTransportNIO
import Synchronization

/// What the HTTP routes and the realtime connections of one actor server share.
final class ActorServerCore: Sendable {
    let configuration: ActorServerConfiguration
    let directory: ActorDirectory
    /// The deadlines of running actions (``ActionDeadline``).
    let timer = DeadlineTimer()
    /// HTTP actions, which run apart from the request so that their timeout can answer first.
    let requests = OwnedTasks<UInt64>()
    /// The realtime connections' actions in flight, which a graceful shutdown lets finish.
    let actionsInFlight = InFlightWork()
    /// The HTTP clients that forward requests to the nodes holding other actors.
    let forwardingClients: ForwardingClients
    private let connectionCounter = Atomic<UInt64>(0)
    private let requestCounter = Atomic<UInt64>(0)

    /// The version `/metadata` reports.
    static let version = "0.1.0"

    init(registry: ActorRegistry, store: any ActorStore, configuration: ActorServerConfiguration) {
        self.configuration = configuration
        self.forwardingClients = ForwardingClients(requestTimeout: configuration.actionTimeout + .seconds(5))
        let scheduler = ActorScheduler(
            store: store, timer: timer, maxSchedules: configuration.maxSchedules,
            reportProblem: configuration.reportProblem)
        let localClients = LocalClients(token: configuration.token)
        self.directory = ActorDirectory(
            registry: registry, store: store, configuration: configuration, scheduler: scheduler,
            localClients: localClients)
        scheduler.start { [weak self] schedule in await self?.fireScheduled(schedule) }
        localClients.start(
            LocalClients.Server(
                respond: { [weak self] request in
                    await self?.respond(to: request) ?? HTTPServerResponse(status: 503)
                },
                serve: { [weak self] transport, request in
                    guard let self else {
                        await transport.close(code: .goingAway, reason: "")
                        return
                    }
                    await self.serve(transport, request: request)
                }))
    }

    func nextConnectionId() -> String {
        "conn_\(connectionCounter.add(1, ordering: .relaxed).newValue)"
    }

    func nextRequestKey() -> UInt64 {
        requestCounter.add(1, ordering: .relaxed).newValue
    }

    /// Puts idle actors to sleep, checking every ``ActorDirectory/sleepCheckInterval``, until
    /// cancelled.
    func sleepIdleActors() async {
        let interval = directory.sleepCheckInterval
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            await directory.sleepIdle()
        }
    }

    /// Keeps this node's leases (when its store places actors on several servers): renews
    /// those of its awake actors every third of the lease, stops serving any it lost, and stops
    /// serving all of them once renewals have failed for two thirds of the lease, before any can
    /// expire. Each round also reads the earliest schedule again, so that schedules other nodes
    /// added fire here when their node is gone. Runs until cancelled.
    func maintainLeases() async {
        guard let placement = directory.placement else { return }
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: placement.renewInterval)
            } catch {
                return
            }
            await directory.scheduler.refresh()
            let ids = await directory.awakeIds
            if let lost = await placement.renew(Array(ids)) {
                if !lost.isEmpty { await directory.evict(lost) }
            } else if placement.isOverdue() {
                configuration.reportProblem("the actors' leases could not be renewed: this node stops serving its actors")
                await directory.evict(ids)
            }
        }
    }

    /// Stops what the core runs in the background: HTTP actions, the actors' connections to
    /// each other, sleeps and destructions, the actors' background work, the action deadlines.
    func shutdown() async {
        await directory.scheduler.shutdown()
        await requests.close()
        await directory.localClients.close()
        await directory.shutdown()
        await forwardingClients.close()
        // The states are saved: other nodes may take these actors at once, not after the lease.
        if let placement = directory.placement {
            for id in await directory.awakeIds { await placement.release(id) }
        }
        timer.close()
    }

    // MARK: Tokens

    func authorize(_ given: [String?]) throws(ActorError) {
        guard let token = configuration.token else { return }
        guard given.contains(where: { $0 == token }) else {
            throw ActorError(.authUnauthorized, "a valid token is required")
        }
    }

    // MARK: Resolution

    /// The awake instance a gateway target names, with the namespace it lives in.
    func instance(for target: GatewayTarget) async throws(ActorError) -> ActorInstance {
        switch target.lookup {
        case .id(let id):
            return try await directory.instance(id: id)
        case .query(let method, let namespace, let name, let key, let input):
            let record: StoredActor
            if method == "getOrCreate" {
                record = try await directory.getOrCreate(namespace: namespace, name: name, key: key, input: input).actor
            } else if let found = try await directory.find(namespace: namespace, name: name, key: key) {
                record = found
            } else {
                throw ActorError(.actorNotFound, "no \(name) actor has that key")
            }
            return try await directory.instance(id: record.id)
        }
    }

    /// The instance a gateway target names, with a hold taken on it (``ActorInstance/enter()``):
    /// an instance that began to sleep meanwhile is waited for and woken anew.
    func enteredInstance(for target: GatewayTarget) async throws(ActorError) -> ActorInstance {
        try await entered { () async throws(ActorError) -> ActorInstance in try await self.instance(for: target) }
    }

    /// The awake instance of actor `id`, with a hold taken on it: woken when it sleeps.
    func enteredInstance(id: String) async throws(ActorError) -> ActorInstance {
        try await entered { () async throws(ActorError) -> ActorInstance in try await self.directory.instance(id: id) }
    }

    /// The instance `lookup` finds, with a hold taken on it: one that began to stop meanwhile
    /// is waited for and looked up anew (a few times), one being destroyed is `not_found`.
    private func entered(_ lookup: () async throws(ActorError) -> ActorInstance) async throws(ActorError) -> ActorInstance {
        for _ in 0 ..< 16 {
            let instance = try await lookup()
            if instance.enter() { return instance }
            guard !instance.isDestroyed else { throw ActorInstance.destroyedError(instance.record.id) }
            await instance.stopped()
        }
        throw ActorError(.actorStopping, "the actor kept stopping")
    }

    // MARK: HTTP errors

    static func status(for error: ActorError) -> Int {
        switch (error.group, error.code) {
        case ("auth", _): 401
        case (_, "not_found"): 404
        case ("rivetkit", _), ("actor", "state_unreadable"): 500
        case ("actor", "too_many_connections"), ("action", "too_many_in_flight"): 429
        case ("actor", "action_timed_out"): 408
        case ("message", "incoming_too_long"): 413
        default: 400
        }
    }

    static func errorResponse(_ error: ActorError) -> HTTPServerResponse {
        HTTPServerResponse(status: status(for: error), json: RivetMessageCodec.encodeErrorBody(error))
    }

    /// The answer to a request body over `limit` bytes: 413 with RivetKit's
    /// `message.incoming_too_long` error body.
    static func tooLargeResponse(limit: Int) -> HTTPServerResponse {
        let error = ActorError(
            .messageIncomingTooLong,
            "the request body is over the limit of \(limit) bytes", metadata: ["limit": .integer(Int64(limit))])
        return errorResponse(error)
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, json: value.description)
    }

    static func actorObject(_ actor: StoredActor) -> JSONValue {
        .object(
            JSONObject([
                ("actor_id", .string(actor.id)),
                ("name", .string(actor.name)),
                ("key", .string(ActorKey.serialize(actor.key))),
                ("namespace_id", .string(actor.namespace)),
                ("runner_name_selector", "default"),
                ("create_ts", .integer(actor.createdAt)),
                ("connectable_ts", .integer(actor.createdAt)),
                ("destroy_ts", .null),
                ("sleep_ts", .null),
                ("start_ts", .integer(actor.createdAt)),
                ("error", .null),
            ]))
    }
}

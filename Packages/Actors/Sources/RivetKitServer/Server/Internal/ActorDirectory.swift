import Foundation
import RivetKit
import RpcTransport

/// The server's actors: looks them up and creates them in the store, starts (wakes) them on
/// demand, puts idle ones to sleep and destroys them.
///
/// An instance is in ``awake`` from the moment it starts until it begins to stop, then in
/// ``stopping`` until it has: a request for a sleeping actor waits for it to have stopped and
/// wakes a new instance from the store; one for a destroyed actor gets `actor.not_found`.
actor ActorDirectory {
    private let registry: ActorRegistry
    private let store: any ActorStore
    private let configuration: ActorServerConfiguration
    /// The server's schedules, which contexts reach through their runtime.
    nonisolated let scheduler: ActorScheduler
    /// The clients behind `context.client`.
    nonisolated let localClients: LocalClients
    /// The leases of a store several servers share; `nil` for a server alone.
    nonisolated let placement: LeasePlacement?
    private var awake: [String: ActorInstance] = [:] {
        didSet {
            guard let observation else { return }
            observation.awakeChanged(by: awake.count - reportedAwake)
            reportedAwake = awake.count
        }
    }
    /// The number of awake actors last added to the meter.
    private var reportedAwake = 0
    /// What the server records; `nil` when nothing is.
    private let observation: ActorObservation?
    private var stopping: [String: ActorInstance] = [:]
    private var reported: Set<String> = []
    /// Sleeps and destructions under way.
    private let tasks = OwnedTasks<String>()
    /// How often the idle rule is checked: a quarter of the shortest sleep timeout.
    nonisolated let sleepCheckInterval: Duration

    init(
        registry: ActorRegistry, store: any ActorStore, configuration: ActorServerConfiguration,
        scheduler: ActorScheduler, localClients: LocalClients
    ) {
        self.scheduler = scheduler
        self.localClients = localClients
        self.placement = LeasePlacement(store: store)
        self.registry = registry
        self.store = store
        self.configuration = configuration
        self.observation = ActorObservation.make(configuration.observability)
        let timeouts = registry.behaviors.values.compactMap(\.options.sleepTimeout) + [configuration.sleepTimeout]
        self.sleepCheckInterval = max((timeouts.min() ?? configuration.sleepTimeout) / 4, .milliseconds(10))
    }

    /// The actor of a namespace, name and key, created from `input` when there is none.
    func getOrCreate(namespace: String, name: String, key: [String], input: JSONValue?) async throws(ActorError)
        -> (actor: StoredActor, created: Bool)
    {
        guard let behavior = registry.behavior(name) else {
            throw ActorError(.actorNotFound, "no actor type is called \(name)")
        }
        if let existing = try await find(namespace: namespace, name: name, key: key) {
            return (existing, false)
        }
        let state = try await behavior.initialState(input: input)
        try ActorInstance.check(state, limit: configuration.maxStateSize)
        let record = StoredActor(
            id: Self.newId(), namespace: namespace, name: name, key: key, state: state,
            createdAt: Int64(Date().timeIntervalSince1970 * 1000))
        let stored: StoredActor
        let inserted: Bool
        do {
            (stored, inserted) = try await store.insert(record)
        } catch {
            throw storeFailure(error)
        }
        if inserted {
            // A new actor starts at once: `onCreate` runs now, as RivetKit runs it on creation.
            // A start that fails undoes the creation, so that no actor is left whose
            // `onCreate` never ran.
            do throws(ActorError) {
                _ = try await instance(id: stored.id, created: true)
            } catch {
                _ = try? await store.delete(id: stored.id)
                throw error
            }
        }
        return (stored, inserted)
    }

    /// The actor of a namespace, name and key, if there is one.
    func find(namespace: String, name: String, key: [String]) async throws(ActorError) -> StoredActor? {
        do {
            return try await store.actor(namespace: namespace, name: name, key: key)
        } catch {
            throw storeFailure(error)
        }
    }

    /// The actor with an id, if there is one.
    func find(id: String) async throws(ActorError) -> StoredActor? {
        if let instance = awake[id] { return instance.record }
        do {
            return try await store.actor(id: id)
        } catch {
            throw storeFailure(error)
        }
    }

    /// The awake instance of an actor, started, woken from the store when it sleeps (after its
    /// sleep has finished).
    ///
    /// - Throws: `actor.not_found` for an actor that does not exist or is being destroyed; the
    ///   start's error when its hooks fail.
    func instance(id: String, created: Bool = false) async throws(ActorError) -> ActorInstance {
        // A few rounds at most: each waits for one stop, and a sleep starts only after the
        // actor's timeout.
        for _ in 0 ..< 16 {
            if let instance = awake[id] {
                try await instance.ready()
                return instance
            }
            if let stopping = stopping[id] {
                guard !stopping.isDestroyed else { throw ActorInstance.destroyedError(id) }
                await stopping.stopped()
                continue
            }
            // With several servers on one store, the actor is woken here only once this node
            // holds its lease (before its state is read, so the state is the last owner's
            // last save); another node's actor is that node's to serve.
            if let placement {
                if let holder = try await placement.acquire(id) { throw placement.elsewhere(holder) }
                guard awake[id] == nil, stopping[id] == nil else { continue }  // woken meanwhile
            }
            guard let record = try await find(id: id) else {
                if let placement { await placement.release(id) }
                throw ActorError(.actorNotFound, "the actor \(id) does not exist")
            }
            guard awake[id] == nil, stopping[id] == nil else { continue }  // woken meanwhile
            guard let behavior = registry.behavior(record.name) else {
                throw ActorError(.actorNotFound, "no actor type is called \(record.name)")
            }
            // A saved state the type cannot read is this actor's problem only: it is reported and
            // its callers are refused, while every other actor serves on.
            let state: ActorStateValue
            do throws(ActorError) {
                state = try behavior.loadState(record.state)
            } catch {
                report(error, actor: record.id)
                throw error
            }
            let instance = ActorInstance(
                record: record, state: state, behavior: behavior, store: store, configuration: configuration,
                observation: observation)
            instance.runtime.install(
                ActorRuntime.Hooks(
                    // Taken at once, so that the actions queued behind the caller's are refused;
                    // the rest runs once the caller's action has answered.
                    destroy: { [weak self, weak instance] in
                        guard let self, let instance, instance.beginDestroy() else { return }
                        self.tasks.spawn { _ = try? await self.finishDestroying(id: id, instance) }
                    },
                    enter: { [weak instance] in instance?.enter() ?? false },
                    leave: { [weak instance] in instance?.leave() },
                    scheduler: scheduler,
                    client: { [localClients, namespace = record.namespace] in localClients.client(namespace: namespace) }))
            awake[id] = instance
            do throws(ActorError) {
                try await instance.start(created: created)
            } catch {
                if awake[id] === instance { awake[id] = nil }
                if let placement { await placement.release(id) }
                throw error
            }
            return instance
        }
        throw ActorError(.actorStopping, "the actor \(id) kept stopping")
    }

    /// Destroys an actor: `onDestroy` runs (when it is awake), its connections are closed and
    /// its record removed; returns whether there was one.
    func destroy(id: String) async throws(ActorError) -> Bool {
        if let instance = stopping[id] ?? awake[id], instance.isDestroyed {
            // Being destroyed already (by its own context): done once it has stopped.
            await instance.stopped()
            return try await deleteRecord(id: id) || true
        }
        if let instance = stopping[id] {
            await instance.stopped()  // falling asleep: then its record goes
        }
        if let instance = awake[id], instance.beginDestroy() {
            return try await finishDestroying(id: id, instance)
        }
        // Asleep here: another node may hold it awake, and then it is that node's to destroy.
        if let placement, awake[id] == nil {
            if let holder = try await placement.acquire(id) { throw placement.elsewhere(holder) }
            let removed: Result<Bool, ActorError>
            do throws(ActorError) {
                removed = .success(try await deleteRecord(id: id))
            } catch {
                removed = .failure(error)
            }
            await placement.release(id)
            return try removed.get()
        }
        return try await deleteRecord(id: id)
    }

    /// Finishes destroying an instance that began to be destroyed: `onDestroy`, connections
    /// closed, record removed.
    @discardableResult
    private func finishDestroying(id: String, _ instance: ActorInstance) async throws(ActorError) -> Bool {
        if awake[id] === instance { awake[id] = nil }
        stopping[id] = instance
        defer { if stopping[id] === instance { stopping[id] = nil } }
        await instance.destroy()
        _ = try await deleteRecord(id: id)
        if let placement { await placement.release(id) }
        return true
    }

    private func deleteRecord(id: String) async throws(ActorError) -> Bool {
        do {
            return try await store.delete(id: id)
        } catch {
            throw storeFailure(error)
        }
    }

    /// Puts to sleep the actors the idle rule lets sleep (``ActorLifecycle/canSleep(now:)``);
    /// returns how many began to. Each leaves ``awake`` at once and finishes its sleep
    /// (`onSleep`, background work) in a task of the directory.
    @discardableResult
    func sleepIdle(now: ContinuousClock.Instant = .now) -> Int {
        var count = 0
        for (id, instance) in awake where instance.beginSleepIfIdle(now: now) {
            awake[id] = nil
            stopping[id] = instance
            count += 1
            let spawned = tasks.spawn { [weak self] in
                await instance.sleep()
                await self?.stopped(id: id, instance: instance)
            }
            if !spawned { stopping[id] = nil }
        }
        return count
    }

    private func stopped(id: String, instance: ActorInstance) async {
        if stopping[id] === instance { stopping[id] = nil }
        if let placement, awake[id] == nil, stopping[id] == nil { await placement.release(id) }
    }

    /// Stops serving the actors this node no longer holds the lease of (``LeasePlacement``): each
    /// leaves ``awake`` at once, its connections are closed with `actor.stopping` (clients
    /// reconnect, through any node, to the new holder) and it stops without running `onSleep`
    /// or saving (another node may be serving it already). Returns how many began to stop.
    @discardableResult
    func evict(_ ids: Set<String>) -> Int {
        var count = 0
        for id in ids {
            guard let instance = awake[id], instance.beginEviction() else { continue }
            awake[id] = nil
            stopping[id] = instance
            count += 1
            let spawned = tasks.spawn { [weak self] in
                await instance.evict()
                await self?.stopped(id: id, instance: instance)
            }
            if !spawned { stopping[id] = nil }
        }
        return count
    }

    /// Stops the directory's work and the awake instances' background work (the server is
    /// stopping; their state is saved already).
    func shutdown() async {
        await tasks.close()
        for instance in awake.values {
            await instance.shutdown()
        }
    }

    /// The ids of the awake actors.
    var awakeIds: Set<String> { Set(awake.keys) }

    /// The names of the registered actor types.
    var actorNames: [String] { registry.names }

    private static func newId() -> String {
        String(format: "%016llx%016llx", UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
    }

    /// Reports (once per actor) an actor that cannot be served.
    private func report(_ error: ActorError, actor id: String) {
        guard reported.count < Self.maxReported, reported.insert(id).inserted else { return }
        configuration.reportProblem("actor \(id) cannot be served: \(error)")
    }

    /// How many actors' problems are remembered, so each is reported once.
    private static let maxReported = 10_000

    private func storeFailure(_ error: any Error) -> ActorError {
        // A row the store cannot read (`actor.state_unreadable`) concerns one actor.
        if let error = error as? ActorError {
            configuration.reportProblem("the actor store refused a row: \(error)")
            return error
        }
        configuration.reportProblem("the actor store failed: \(error)")
        return ActorError(.rivetkitInternalError, "the actor store failed")
    }
}

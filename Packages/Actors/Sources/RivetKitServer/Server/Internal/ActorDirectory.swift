import Foundation
import RivetKit

/// The server's actors: looks them up and creates them in the store, wakes sleeping ones on
/// demand and puts idle ones to sleep.
actor ActorDirectory {
    private let registry: ActorRegistry
    private let store: any ActorStore
    private let configuration: ActorServerConfiguration
    private var awake: [String: ActorInstance] = [:]
    private var reported: Set<String> = []

    init(registry: ActorRegistry, store: any ActorStore, configuration: ActorServerConfiguration) {
        self.registry = registry
        self.store = store
        self.configuration = configuration
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
        do {
            let (stored, inserted) = try await store.insert(record)
            return (stored, inserted)
        } catch {
            throw storeFailure(error)
        }
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

    /// The awake instance of an actor, woken from the store when it sleeps.
    func instance(id: String) async throws(ActorError) -> ActorInstance {
        if let instance = awake[id] { return instance }
        guard let record = try await find(id: id) else {
            throw ActorError(.actorNotFound, "the actor \(id) does not exist")
        }
        if let instance = awake[id] { return instance }  // woken meanwhile
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
        if let instance = awake[id] { return instance }  // woken meanwhile
        let instance = ActorInstance(
            record: record, state: state, behavior: behavior, store: store, configuration: configuration)
        awake[id] = instance
        return instance
    }

    /// Destroys an actor: its connections are closed and its record removed.
    func destroy(id: String) async throws(ActorError) -> Bool {
        if let instance = awake.removeValue(forKey: id) {
            instance.closeAll(ActorError(.actorDestroyedWhileConnected, "the actor was destroyed"))
        }
        do {
            return try await store.delete(id: id)
        } catch {
            throw storeFailure(error)
        }
    }

    /// Puts to sleep the actors idle for the configured time; returns how many.
    @discardableResult
    func sleepIdle(now: ContinuousClock.Instant = .now) -> Int {
        let sleeping = awake.filter { $0.value.isIdle(for: configuration.sleepAfter, now: now) }.map(\.key)
        for id in sleeping { awake[id] = nil }
        return sleeping.count
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

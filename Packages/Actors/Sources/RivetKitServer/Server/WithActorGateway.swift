/// Starts RivetKit's actors without a socket of their own, runs `body` with the
/// ``ActorGateway`` that another server routes requests and WebSockets to, and stops them
/// when `body` returns or throws: HTTP actions in flight, the actors' background work and
/// schedules end, the state is saved.
///
/// ```swift
/// try await withActorGateway(registry: registry, store: try SQLiteActorStore(path: "actors.sqlite")) { gateway in
///     // mount the gateway on the application's router, then run the application
/// }
/// ```
///
/// Run the server that routes to the gateway inside `body`, so that its connections end
/// before the gateway does. With a store that places actors on several nodes, set
/// ``ActorServerConfiguration/advertisedEndpoint`` to the URL other nodes reach this one at
/// (the mount's URL).
///
/// - Parameters:
///   - registry: The actor types offered.
///   - store: Where actors and their state are kept.
///   - configuration: Token and limits (its `host` and `port` are not used).
///   - isolation: The actor `body` runs on; the caller's by default.
///   - body: What to do while the gateway runs.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func withActorGateway<Value>(
    registry: ActorRegistry,
    store: any ActorStore,
    configuration: ActorServerConfiguration = ActorServerConfiguration(),
    isolation: isolated (any _Concurrency.Actor)? = #isolation,
    _ body: (ActorGateway) async throws -> Value
) async throws -> Value {
    let core = ActorServerCore(registry: registry, store: store, configuration: configuration)
    if let endpoint = configuration.advertisedEndpoint {
        core.directory.placement?.endpoint = endpoint
    }
    let outcome: Result<Value, any Error>
    do {
        outcome = .success(
            try await withThrowingTaskGroup(of: Void.self, returning: Value.self, isolation: isolation) { group in
                group.addTask { await core.sleepIdleActors() }
                group.addTask { await core.maintainLeases() }
                defer { group.cancelAll() }
                return try await body(ActorGateway(core: core))
            })
    } catch {
        outcome = .failure(error)
    }
    await core.shutdown()
    return try outcome.get()
}

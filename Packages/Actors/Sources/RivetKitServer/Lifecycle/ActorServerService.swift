import RpcTransport
public import ServiceLifecycle

/// An actor server as a `Service` of a swift-service-lifecycle `ServiceGroup`: it serves from
/// the moment the group runs it until the group shuts down gracefully, then it stops accepting,
/// lets the actions in flight finish (``ActorServer/shutdownGracefully()``) and closes the
/// remaining connections with 1001 (going away).
///
/// ```swift
/// let server = ActorServerService(registry: registry, store: store) { server in
///     print("READY \(server.endpoint)")
/// }
/// try await ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// ```
public struct ActorServerService: Service {
    private let service: ScopedService<ActorServer>

    /// Creates the service; the server listens once the service runs.
    ///
    /// - Parameters:
    ///   - registry: The actor types offered.
    ///   - store: Where actors and their state are kept.
    ///   - configuration: Address, token, limits and the drain timeout.
    ///   - onStart: Called with the running server (to announce it, say); a graceful shutdown
    ///     cancels it, and an error it throws stops the service.
    public init(
        registry: ActorRegistry,
        store: any ActorStore,
        configuration: ActorServerConfiguration = ActorServerConfiguration(),
        onStart: @escaping @Sendable (ActorServer) async throws -> Void = { _ in }
    ) {
        service = ScopedService(
            open: { body in
                try await withActorServer(registry: registry, store: store, configuration: configuration) { server in
                    try await body(server)
                }
            },
            use: { server in
                try await onStart(server)
                try await ScopedService<ActorServer>.untilShutdown()
            },
            stop: { server in await server.shutdownGracefully() }
        )
    }

    /// Serves until the group shuts down gracefully (then drains and closes) or cancels it.
    ///
    /// - Throws: The transport's error when the server cannot listen, what `onStart` throws, or
    ///   `CancellationError` when the service was cancelled.
    public func run() async throws {
        try await service.run()
    }
}

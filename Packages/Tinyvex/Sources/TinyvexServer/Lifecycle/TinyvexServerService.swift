import RpcTransport
public import ServiceLifecycle

/// A Tinyvex server as a `Service` of a swift-service-lifecycle `ServiceGroup`: it serves from
/// the moment the group runs it until the group shuts down gracefully, then it stops accepting,
/// lets the requests being answered finish (``TinyvexServer/shutdownGracefully()``) and closes
/// the remaining connections with 1001 (going away).
///
/// ```swift
/// let server = TinyvexServerService(schema: schema, database: .file("chat.sqlite"), port: 9099) { server in
///     print("READY \(server.url)")
/// }
/// try await ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// ```
public struct TinyvexServerService: Service {
    private let service: ScopedService<TinyvexServer>

    /// Creates the service; the store opens and the server listens once the service runs.
    ///
    /// - Parameters:
    ///   - schema: The queries, mutations and actions.
    ///   - database: Where the documents live; in memory by default.
    ///   - configuration: Limits, the auth hook and the drain timeout.
    ///   - host: The address to bind; loopback by default.
    ///   - port: The port; 0 for any free port.
    ///   - onStart: Called with the running server (to announce it, say); a graceful shutdown
    ///     cancels it, and an error it throws stops the service.
    public init(
        schema: TinyvexSchema,
        database: TinyvexDatabase = .inMemory,
        configuration: TinyvexServerConfiguration = TinyvexServerConfiguration(),
        host: String = "127.0.0.1",
        port: Int = 0,
        onStart: @escaping @Sendable (TinyvexServer) async throws -> Void = { _ in }
    ) {
        service = ScopedService(
            open: { body in
                try await TinyvexServer.withServer(
                    schema: schema, database: database, configuration: configuration, host: host, port: port
                ) { server in try await body(server) }
            },
            use: { server in
                try await onStart(server)
                try await ScopedService<TinyvexServer>.untilShutdown()
            },
            stop: { server in await server.shutdownGracefully() }
        )
    }

    /// Serves until the group shuts down gracefully (then drains and closes) or cancels it.
    ///
    /// - Throws: What opening the store or listening throws, what `onStart` throws, or
    ///   `CancellationError` when the service was cancelled.
    public func run() async throws {
        try await service.run()
    }
}

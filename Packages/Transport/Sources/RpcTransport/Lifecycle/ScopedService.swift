public import ServiceLifecycle

/// Runs a scoped `with… { }` resource, a server or a long-lived client, as a `Service` of a
/// swift-service-lifecycle `ServiceGroup`: the one service loop of the stack, which every
/// server's and client's service type wraps.
///
/// ``run()`` opens the resource, runs `use` with it until `use` returns or a graceful shutdown
/// begins (which cancels `use`), then runs `stop` (a server's graceful shutdown, say) before the
/// scope closes the resource. A cancelled service stops the same way, with `stop` running in the
/// cancelled task (its waits end at once), and then throws `CancellationError`.
///
/// ```swift
/// let service = ScopedService<MyServer>(
///     open: { body in try await withMyServer(port: 0) { server in try await body(server) } },
///     use: { server in print("READY \(server.port)") ; try await ScopedService<MyServer>.untilShutdown() },
///     stop: { server in await server.shutdownGracefully() }
/// )
/// try await ServiceGroup(services: [service], logger: logger).run()
/// ```
public struct ScopedService<Resource: Sendable>: Service {
    /// Opens the resource, runs the body with it while it is open, and closes it when the body
    /// returns.
    public typealias Open = @Sendable (_ body: (Resource) async throws -> Void) async throws -> Void

    private let open: Open
    private let use: @Sendable (Resource) async throws -> Void
    private let stop: @Sendable (Resource) async -> Void

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - open: Opens the resource (a `with…` function) and runs the body with it.
    ///   - use: What to do with the open resource; cancelled when a graceful shutdown begins.
    ///     A server's usually announces it and waits (``untilShutdown()``).
    ///   - stop: Runs after `use`, while the resource is still open: a server's graceful
    ///     shutdown. Nothing by default.
    public init(
        open: @escaping Open,
        use: @escaping @Sendable (Resource) async throws -> Void,
        stop: @escaping @Sendable (Resource) async -> Void = { _ in }
    ) {
        self.open = open
        self.use = use
        self.stop = stop
    }

    /// Creates the service of a long-lived client that exists already (made by the
    /// application, which goes on calling through it while the service runs): ``run()`` starts
    /// it, keeps it running (its own reconnects included) until a graceful shutdown begins or
    /// the task is cancelled, then closes it.
    ///
    /// ```swift
    /// extension MyClient: Service {
    ///     public func run() async throws {
    ///         try await ScopedService(client: self, start: { try await $0.connect() }, close: { await $0.close() }).run()
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - start: Starts its connection (nothing by default, for a client that connects on first
    ///     use); an error it throws stops the service with that error, after `close`.
    ///   - close: Closes its connections: what the client's own scoped `with…` does when its body
    ///     returns.
    public init(
        client: Resource,
        start: @escaping @Sendable (Resource) async throws -> Void = { _ in },
        close: @escaping @Sendable (Resource) async -> Void
    ) {
        self.init(
            open: { body in try await body(client) },
            use: { client in
                try await start(client)
                try await Self.untilShutdown()
            },
            stop: close)
    }

    /// Opens the resource and runs it until `use` returns, a graceful shutdown begins or the
    /// task is cancelled; then stops it.
    ///
    /// - Throws: What opening the resource or `use` throws, or `CancellationError` when the
    ///   service was cancelled rather than shut down gracefully.
    public func run() async throws {
        let use = self.use
        let stop = self.stop
        try await open { resource in
            let outcome: Result<Void, any Error>
            do {
                try await cancelWhenGracefulShutdown { try await use(resource) }
                outcome = .success(())
            } catch is CancellationError where Task.isShuttingDownGracefully {
                // The graceful shutdown cancelled `use`: the expected way to stop.
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await stop(resource)
            try outcome.get()
        }
    }

    /// Waits until the task is cancelled, as a graceful shutdown cancels `use`; for a `use`
    /// that has nothing to do but keep its resource open.
    ///
    /// - Throws: `CancellationError`, always, once cancelled.
    public static func untilShutdown() async throws {
        while true {
            try await Task.sleep(for: .seconds(3_600))
        }
    }
}

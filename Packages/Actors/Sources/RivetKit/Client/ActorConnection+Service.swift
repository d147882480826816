internal import RpcTransport
public import ServiceLifecycle

extension ActorConnection: Service {
    /// Runs the connection as a `Service` of a swift-service-lifecycle `ServiceGroup`: starts it
    /// (``start()``), keeps it connected (reconnecting by itself) while the application calls
    /// its actions and reads its events, and when the group shuts down gracefully or the task is
    /// cancelled disposes it (``dispose()``, which closes the WebSocket with 1000 `Disposed`)
    /// and returns.
    ///
    /// ```swift
    /// let connection = client.getOrCreate("counter", key: ["a"]).connect()
    /// let group = ServiceGroup(services: [connection], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    ///
    /// - Throws: `CancellationError` when the service was cancelled rather than shut down
    ///   gracefully.
    public func run() async throws {
        try await ScopedService(client: self, start: { $0.start() }, close: { await $0.dispose() }).run()
    }
}

internal import RpcTransport
public import ServiceLifecycle

extension TinyvexClient: Service {
    /// Runs the client as a `Service` of a swift-service-lifecycle `ServiceGroup`: the
    /// application subscribes and calls through it while it runs (its connection opens with the
    /// first call and reconnects by itself), and when the group shuts down gracefully or the task
    /// is cancelled it closes the client (``close()``: the WebSocket closed with 1000, every
    /// subscription ended) and returns.
    ///
    /// ```swift
    /// let client = TinyvexClient(endpoint: url)
    /// let group = ServiceGroup(services: [client], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    ///
    /// - Throws: `CancellationError` when the service was cancelled rather than shut down
    ///   gracefully.
    public func run() async throws {
        try await ScopedService(client: self, close: { await $0.close() }).run()
    }
}

internal import RpcTransport
public import ServiceLifecycle

extension RpcClient: Service {
    /// Runs the client as a `Service` of a swift-service-lifecycle `ServiceGroup`: connects
    /// (``connect()``), keeps the connection going (reconnecting as
    /// ``RpcClientConfiguration/reconnect`` says) while the application calls through the
    /// client, and when the group shuts down gracefully or the task is cancelled, disconnects
    /// (``disconnect()``, which closes the WebSocket with 1000) and returns.
    ///
    /// ```swift
    /// let client = try RpcClient(url: "wss://api.example.com")
    /// let group = ServiceGroup(services: [client], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    ///
    /// - Throws: What ``connect()`` throws (the service stops with it), or `CancellationError`
    ///   when the service was cancelled rather than shut down gracefully.
    public nonisolated func run() async throws {
        try await ScopedService(client: self, start: { try await $0.connect() }, close: { await $0.disconnect() }).run()
    }
}

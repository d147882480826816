internal import RpcTransport
public import ServiceLifecycle

extension RivetKitClient: Service {
    /// Runs the client as a `Service` of a swift-service-lifecycle `ServiceGroup`: the
    /// application uses it (actions, shared connections, which reconnect by themselves) while it
    /// runs, and when the group shuts down gracefully or the task is cancelled it closes the
    /// client (``close()``: every shared connection disposed with 1000 `Disposed`, the HTTP
    /// connections closed) and returns.
    ///
    /// ```swift
    /// let client = RivetKitClient(ClientConfig(endpoint: "http://127.0.0.1:6420"))
    /// let group = ServiceGroup(services: [client], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    ///
    /// A connection made with ``ActorHandle/connect()`` is not shared: it is closed by its own
    /// service (``ActorConnection/run()``) or by ``ActorConnection/dispose()``.
    ///
    /// - Throws: `CancellationError` when the service was cancelled rather than shut down
    ///   gracefully.
    public func run() async throws {
        try await ScopedService(client: self, close: { await $0.close() }).run()
    }
}

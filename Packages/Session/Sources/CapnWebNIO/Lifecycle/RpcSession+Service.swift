public import CapnWebCore
internal import RpcTransport
public import ServiceLifecycle

extension RpcSession: Service {
    /// Keeps the session (and its reconnects) going as a `Service` of a swift-service-lifecycle
    /// `ServiceGroup` until the group shuts down gracefully or the task is cancelled, then closes
    /// it with 1000 (normal closure): calls still waiting fail with
    /// ``RpcError/connectionLost(_:)``.
    ///
    /// ```swift
    /// let session = try await RpcSession<API>.connect(to: url)
    /// let group = ServiceGroup(services: [server, session], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    ///
    /// - Throws: `CancellationError` when the service was cancelled rather than shut down
    ///   gracefully.
    public nonisolated func run() async throws {
        try await ScopedService(client: self, close: { session in
            await session.close(code: .normal, reason: "the client shut down")
        }).run()
    }
}

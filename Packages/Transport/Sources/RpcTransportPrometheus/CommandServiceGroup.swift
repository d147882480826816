public import ServiceLifecycle
import Logging
import UnixSignals

/// How the `serve` commands run: their server, and with a metrics port the ``MetricsEndpointService``,
/// as services of one `ServiceGroup` that shuts down gracefully on `SIGTERM` or `SIGINT`.
///
/// ```swift
/// try await CommandServiceGroup.run(server, metricsPort: 9464, metricsHost: "127.0.0.1") { port in
///     print("METRICS http://127.0.0.1:\(port)/metrics")
/// }
/// ```
public enum CommandServiceGroup {
    /// The longest a graceful shutdown may take before the group cancels what still runs: the
    /// servers' drain timeout (10 seconds) and grace period with a margin. 30 seconds.
    public static let maximumGracefulShutdownDuration: Duration = .seconds(30)

    /// Runs `server` until a `SIGTERM` or `SIGINT` has shut it down gracefully (or it stops by
    /// itself); with a `metricsPort`, swift-metrics is bootstrapped with Prometheus first and
    /// `GET /metrics` is served on `metricsHost:metricsPort` until the server has stopped.
    ///
    /// - Parameters:
    ///   - server: The command's server.
    ///   - metricsPort: Where to serve `/metrics`; `nil` for no metrics endpoint (and no
    ///     bootstrap). 0 picks a free port.
    ///   - metricsHost: The address the metrics endpoint listens on.
    ///   - maximumGracefulShutdownDuration: After this, a graceful shutdown becomes a
    ///     cancellation.
    ///   - onMetricsListening: Called with the metrics endpoint's port once it listens.
    /// - Throws: What a service throws (a port that cannot be bound, say).
    public static func run(
        _ server: any Service,
        metricsPort: Int?,
        metricsHost: String = "127.0.0.1",
        maximumGracefulShutdownDuration: Duration = Self.maximumGracefulShutdownDuration,
        onMetricsListening: @escaping @Sendable (_ port: Int) -> Void = { _ in }
    ) async throws {
        var services: [any Service] = []
        if let metricsPort {
            let registry = MetricsEndpointService.bootstrap()
            // First in the group, so that it shuts down last: the server's last metrics can be read.
            services.append(
                MetricsEndpointService(
                    registry: registry, host: metricsHost, port: metricsPort, onListening: onMetricsListening))
        }
        services.append(server)
        var logger = Logger(label: "rpc.command", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = maximumGracefulShutdownDuration
        try await ServiceGroup(configuration: configuration).run()
    }
}

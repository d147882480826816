public import Prometheus
public import ServiceLifecycle
import CoreMetrics
import NIOHTTP1
import RpcTransport
import RpcTransportNIO

/// Serves the process's metrics as Prometheus text at `GET /metrics`, on a transport server of
/// its own, as a `Service` of the command's `ServiceGroup`.
///
/// ```swift
/// let registry = MetricsEndpointService.bootstrap()
/// let metrics = MetricsEndpointService(registry: registry, host: "127.0.0.1", port: 9464)
/// try await ServiceGroup(services: [metrics, server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// ```
///
/// Other paths are answered with 404, other methods on `/metrics` with 405.
public struct MetricsEndpointService: Service {
    /// The content type of Prometheus' text exposition format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let service: ScopedService<TransportServer>

    /// Creates the endpoint; it listens once the service runs.
    ///
    /// - Parameters:
    ///   - registry: Whose metrics are served (the one ``bootstrap()`` made).
    ///   - host: The address to listen on.
    ///   - port: The port; 0 picks a free one.
    ///   - onListening: Called with the port once listening.
    public init(
        registry: PrometheusCollectorRegistry,
        host: String = "127.0.0.1",
        port: Int,
        onListening: @escaping @Sendable (_ port: Int) -> Void = { _ in }
    ) {
        var settings = TransportServerConfiguration(address: .host(host, port: port))
        // A scrape is a GET without a body.
        settings.maxRequestBodySize = 0
        settings.shutdownGracePeriod = .seconds(1)
        let configuration = settings
        service = ScopedService(
            open: { body in
                try await withTransportServer(
                    configuration: configuration,
                    onRequest: { request in Self.answer(request, registry: registry) }
                ) { server in try await body(server) }
            },
            use: { server in
                onListening(server.port ?? port)
                try await ScopedService<TransportServer>.untilShutdown()
            }
        )
    }

    /// Serves `/metrics` until the group shuts down gracefully or cancels it.
    ///
    /// - Throws: `TransportError` when it cannot listen, or `CancellationError`
    ///   when cancelled.
    public func run() async throws {
        try await service.run()
    }

    /// Makes a Prometheus registry and bootstraps swift-metrics with it, so that every metric
    /// the libraries record lands there. Call it once per process, before any metric is made.
    ///
    /// - Returns: The registry to give to ``init(registry:host:port:onListening:)``.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }

    /// The answer to one request.
    static func answer(_ request: HTTPServerRequest, registry: PrometheusCollectorRegistry) -> HTTPServerResponse {
        guard request.path == "/metrics" else {
            return HTTPServerResponse(status: 404, text: "not found; metrics are at /metrics")
        }
        guard request.method == .GET || request.method == .HEAD else {
            return HTTPServerResponse(status: 405, headers: ["allow": "GET, HEAD"], body: Array("use GET".utf8))
        }
        return HTTPServerResponse(
            status: 200, headers: ["content-type": contentType],
            body: request.method == .HEAD ? [] : registry.emitToBuffer())
    }
}

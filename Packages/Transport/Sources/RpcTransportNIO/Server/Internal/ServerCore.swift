import Logging
import RpcTransport

/// What every connection of one server shares: its configuration, its registry, the queue of
/// work for its task group, its TLS provider and logger.
final class ServerCore: Sendable {
    let configuration: TransportServerConfiguration
    let registry: ServerRegistry
    /// The server's transport metrics; `nil` when metrics go nowhere.
    let metrics: TransportServerMetrics?
    let work: AsyncStream<ServerWork>.Continuation
    let tls: (any TLSServerProvider)?
    let logger: Logger
    /// Whether a connection handler was given; without one, upgrades are answered with 404.
    let acceptsWebSockets: Bool
    /// Whether a batch handler was given; without one, POST requests are answered with 404.
    let acceptsBatches: Bool
    /// Whether a request handler was given; it then answers every request that is not an
    /// upgrade, whatever its method.
    let acceptsRequests: Bool

    init(
        configuration: TransportServerConfiguration,
        work: AsyncStream<ServerWork>.Continuation,
        tls: (any TLSServerProvider)?,
        logger: Logger,
        acceptsWebSockets: Bool,
        acceptsBatches: Bool,
        acceptsRequests: Bool = false
    ) {
        self.configuration = configuration
        let metrics = TransportServerMetrics(observability: configuration.observability)
        self.metrics = metrics
        self.registry = ServerRegistry(metrics: metrics)
        self.work = work
        self.tls = tls
        self.logger = logger
        self.acceptsWebSockets = acceptsWebSockets
        self.acceptsBatches = acceptsBatches
        self.acceptsRequests = acceptsRequests
    }

    /// The path of a request target: everything before the query.
    static func path(of uri: String) -> String {
        guard let mark = uri.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return uri }
        return String(uri[..<mark])
    }
}

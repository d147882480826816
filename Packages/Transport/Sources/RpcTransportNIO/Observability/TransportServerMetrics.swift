import CoreMetrics
import RpcTransport

/// The metrics of one ``TransportServer``, made once when it starts.
final class TransportServerMetrics: Sendable {
    /// `rpc_transport_connections_open`: accepted connections open now.
    let connectionsOpen: Meter
    /// `rpc_transport_websockets_open`: accepted WebSocket connections open now.
    let webSocketsOpen: Meter
    /// `rpc_transport_bytes_received_total`: bytes read from accepted connections.
    let bytesReceived: Counter
    /// `rpc_transport_bytes_sent_total`: bytes written to accepted connections.
    let bytesSent: Counter

    /// `nil` when metrics go nowhere.
    init?(observability: RpcObservability) {
        guard let factory = observability.activeMetricsFactory else { return nil }
        connectionsOpen = Meter(label: "rpc_transport_connections_open", dimensions: [], factory: factory)
        webSocketsOpen = Meter(label: "rpc_transport_websockets_open", dimensions: [], factory: factory)
        bytesReceived = Counter(label: "rpc_transport_bytes_received_total", dimensions: [], factory: factory)
        bytesSent = Counter(label: "rpc_transport_bytes_sent_total", dimensions: [], factory: factory)
    }
}

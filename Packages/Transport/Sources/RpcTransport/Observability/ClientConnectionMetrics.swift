import CoreMetrics
import Synchronization

/// The metrics of one ``ReconnectingConnection``, made once: whether it is connected, how often
/// it connected again after a loss, and its offline queue's depth.
final class ClientConnectionMetrics: Sendable {
    /// `rpc_client_connections_open{protocol}`: 1 while connected.
    let connectionsOpen: Meter
    /// `rpc_client_reconnects_total{protocol}`: each `connected` after the first.
    let reconnects: Counter
    /// `rpc_client_offline_queue_depth{protocol}`: messages and callers held while not connected.
    let offlineQueueDepth: Meter
    private let phase = Mutex((connected: false, everConnected: false))

    /// `nil` when metrics go nowhere.
    init?(protocolName: String, observability: RpcObservability) {
        guard let factory = observability.activeMetricsFactory else { return nil }
        let dimensions = [("protocol", protocolName)]
        connectionsOpen = Meter(label: "rpc_client_connections_open", dimensions: dimensions, factory: factory)
        reconnects = Counter(label: "rpc_client_reconnects_total", dimensions: dimensions, factory: factory)
        offlineQueueDepth = Meter(label: "rpc_client_offline_queue_depth", dimensions: dimensions, factory: factory)
    }

    /// Records a published state.
    func record(_ state: ConnectionState) {
        let isConnected: Bool
        if case .connected = state { isConnected = true } else { isConnected = false }
        let (opened, closed, again) = phase.withLock { phase -> (Bool, Bool, Bool) in
            defer { phase.connected = isConnected }
            if isConnected, !phase.connected {
                let again = phase.everConnected
                phase.everConnected = true
                return (true, false, again)
            }
            return (false, !isConnected && phase.connected, false)
        }
        if opened { connectionsOpen.increment() }
        if closed { connectionsOpen.decrement() }
        if again { reconnects.increment() }
    }
}

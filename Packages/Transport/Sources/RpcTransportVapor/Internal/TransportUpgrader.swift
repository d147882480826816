import NIOHTTP1
import Vapor
import RpcTransportNIO

/// Vapor's hook into its own upgrade: once the route's 101 response is on its way and Vapor has
/// removed its HTTP handlers, the connection becomes our ``RpcTransportNIO/WebSocketTransport``
/// (our frame reader, limits, compression and keepalive), served by the application's
/// ``VaporConnections``.
struct TransportUpgrader: Upgrader {
    let configuration: TransportServerConfiguration
    let subprotocol: String?
    let connections: VaporConnections
    let onConnection: @Sendable (WebSocketTransport) async -> Void

    func applyUpgrade(req: Request, res: Response) -> any HTTPServerProtocolUpgrader {
        let connections = self.connections
        let onConnection = self.onConnection
        return AdoptedWebSocketUpgrader(
            configuration: configuration,
            subprotocol: subprotocol,
            eventLoop: req.eventLoop
        ) { transport in
            connections.serve(transport, with: onConnection)
        }
    }
}

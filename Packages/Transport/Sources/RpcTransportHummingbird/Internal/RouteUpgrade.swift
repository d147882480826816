import RpcTransportNIO
import Synchronization

/// Where a route's ``Hummingbird/Request/upgrade(_:configuration:onConnection:)`` leaves the
/// WebSocket it accepted while the server asks the router about an opening handshake: the server
/// binds one to ``current`` around that call and reads it once the router has answered.
final class RouteUpgrade: Sendable {
    /// What a route accepted: the connection's limits, its subprotocol and its handler.
    struct Acceptance: Sendable {
        let configuration: TransportServerConfiguration
        let subprotocol: String?
        let onConnection: @Sendable (WebSocketTransport) async -> Void
    }

    /// The upgrade the server is asking the router about; `nil` outside that call.
    @TaskLocal static var current: RouteUpgrade?

    private let accepted = Mutex<Acceptance?>(nil)

    /// Records the route's acceptance; the last one wins.
    func accept(_ acceptance: Acceptance) {
        accepted.withLock { $0 = acceptance }
    }

    /// The route's acceptance, if it accepted.
    var acceptance: Acceptance? {
        accepted.withLock { $0 }
    }
}

import RpcTransportNIO

/// A running actor server: RivetKit's HTTP surface and gateway WebSocket on one port, for the
/// actor types of a registry, with state kept in an ``ActorStore``.
///
/// Run one with ``withActorServer(registry:store:configuration:isolation:_:)``.
public final class ActorServer: Sendable {
    /// The configuration the server runs with.
    public let configuration: ActorServerConfiguration
    let core: ActorServerCore
    let transport: TransportServer

    init(core: ActorServerCore, transport: TransportServer) {
        self.core = core
        self.configuration = core.configuration
        self.transport = transport
    }

    /// The port the server listens on (the chosen one for port 0).
    public var port: Int { transport.port ?? configuration.port }

    /// The endpoint clients use: `http://host:port`.
    public var endpoint: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)"
    }

    /// How many connections are open right now, HTTP and WebSocket.
    public var openConnectionCount: Int { transport.openConnectionCount }

    /// How many actors are awake (in memory) right now.
    public func awakeActorCount() async -> Int {
        await core.directory.awakeIds.count
    }

    /// Puts to sleep, now, the actors idle for their sleep timeout
    /// (``ActorServerConfiguration/sleepTimeout``); returns how many began to. The server also
    /// does this by itself, four times per shortest sleep timeout.
    @discardableResult
    public func sleepIdleActors() async -> Int {
        await core.directory.sleepIdle()
    }
}

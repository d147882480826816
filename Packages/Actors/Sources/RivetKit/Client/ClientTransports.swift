import NIOHTTP1
public import RpcTransportNIO

/// How a ``RivetKitClient`` reaches its server: the realtime connection's socket and the HTTP
/// client. The default, ``network``, opens WebSockets and HTTP connections; a test (or an
/// application that hosts the actor server in process) may pass its own.
///
/// ```swift
/// let client = RivetKitClient(config, transports: .network)
/// ```
public struct ClientTransports: Sendable {
    /// Opens a realtime connection to `url` (`ws://` or `wss://`, path and query included)
    /// offering `subprotocols`; returns the transport and the subprotocol the server selected
    /// (`nil` when it selected none). It must stop when its task is cancelled.
    public typealias SocketFactory =
        @Sendable (_ url: String, _ subprotocols: [String]) async throws -> (any MessageTransport, subprotocol: String?)

    /// Makes the HTTP client for `endpoint` (the resolved endpoint, without credentials) that
    /// sends `headers` with every request.
    public typealias HTTPClientFactory =
        @Sendable (_ endpoint: String, _ headers: [String: String]) throws(TransportError) -> any ActorHTTPClient

    /// Opens the sockets of realtime connections.
    public var openSocket: SocketFactory
    /// Makes the HTTP clients.
    public var makeHTTPClient: HTTPClientFactory

    /// Creates transports from the two factories.
    public init(openSocket: @escaping SocketFactory, makeHTTPClient: @escaping HTTPClientFactory) {
        self.openSocket = openSocket
        self.makeHTTPClient = makeHTTPClient
    }

    /// WebSockets (``WebSocketClient``) and HTTP connections
    /// (``HTTPClient``) over the network.
    public static var network: ClientTransports {
        ClientTransports(
            openSocket: { url, subprotocols in
                var configuration = WebSocketClientConfiguration()
                configuration.subprotocols = subprotocols
                let transport = try await WebSocketClient.connect(to: url, configuration: configuration)
                return (transport, transport.subprotocol)
            },
            makeHTTPClient: { (endpoint: String, headers: [String: String]) throws(TransportError) -> any ActorHTTPClient in
                var configuration = HTTPClientConfiguration()
                for (name, value) in headers { configuration.headers.add(name: name, value: value) }
                return try HTTPClient(baseURL: endpoint, configuration: configuration)
            })
    }
}

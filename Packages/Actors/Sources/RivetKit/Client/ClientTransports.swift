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

    /// A ``SocketFactory`` that also sends `headers` with the upgrade request: the trace
    /// context of the client's tracer (``ClientConfig/observability``), when one records.
    public typealias HeaderSocketFactory =
        @Sendable (_ url: String, _ subprotocols: [String], _ headers: [String: String]) async throws
        -> (any MessageTransport, subprotocol: String?)

    /// Makes the HTTP client for `endpoint` (the resolved endpoint, without credentials) that
    /// sends `headers` with every request.
    public typealias HTTPClientFactory =
        @Sendable (_ endpoint: String, _ headers: [String: String]) throws(TransportError) -> any ActorHTTPClient

    /// Opens the sockets of realtime connections, with the upgrade's extra headers.
    public var openSocketWithHeaders: HeaderSocketFactory
    /// Makes the HTTP clients.
    public var makeHTTPClient: HTTPClientFactory

    /// Opens the sockets of realtime connections; setting it replaces
    /// ``openSocketWithHeaders`` with a factory that sends no extra headers.
    public var openSocket: SocketFactory {
        get {
            let open = openSocketWithHeaders
            return { url, subprotocols in try await open(url, subprotocols, [:]) }
        }
        set {
            openSocketWithHeaders = { url, subprotocols, _ in try await newValue(url, subprotocols) }
        }
    }

    /// Creates transports from the two factories; the sockets get no extra headers.
    public init(openSocket: @escaping SocketFactory, makeHTTPClient: @escaping HTTPClientFactory) {
        self.openSocketWithHeaders = { url, subprotocols, _ in try await openSocket(url, subprotocols) }
        self.makeHTTPClient = makeHTTPClient
    }

    /// Creates transports from a socket factory that sends the upgrade's extra headers and an
    /// HTTP client factory.
    public init(openSocketWithHeaders: @escaping HeaderSocketFactory, makeHTTPClient: @escaping HTTPClientFactory) {
        self.openSocketWithHeaders = openSocketWithHeaders
        self.makeHTTPClient = makeHTTPClient
    }

    /// WebSockets (``WebSocketClient``) and HTTP connections
    /// (``HTTPClient``) over the network.
    public static var network: ClientTransports {
        ClientTransports(
            openSocketWithHeaders: { url, subprotocols, headers in
                var configuration = WebSocketClientConfiguration()
                configuration.subprotocols = subprotocols
                for (name, value) in headers { configuration.headers.replaceOrAdd(name: name, value: value) }
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

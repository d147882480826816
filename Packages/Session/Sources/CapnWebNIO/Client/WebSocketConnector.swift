#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
internal import RpcTransport
internal import RpcTransportNIO
internal import CapnWebCore
internal import ServiceContextModule
internal import Tracing

/// Opens WebSocket connections to one URL with a session's settings.
struct WebSocketConnector: Sendable {
    let url: String
    let configuration: WebSocketClientConfiguration
    /// The loop every connection of the session runs on, so the session's executor stays the
    /// same across reconnects.
    let eventLoop: any EventLoop
    /// The tracer whose current context goes into each upgrade's headers; `nil` when spans go
    /// nowhere.
    let tracer: (any Tracer)?

    /// Checks `url` (`ws` or `wss`) and prepares the client settings.
    init(url: URL, configuration: Configuration) throws(RpcError) {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "ws" || scheme == "wss" else {
            throw .invalidTarget("a session URL must start with ws:// or wss://, not '\(url.absoluteString)'")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidTarget("the session URL '\(url.absoluteString)' has no host")
        }
        var client = WebSocketClientConfiguration()
        client.headers = Self.headers(configuration.headers)
        client.tls = configuration.tls
        client.connectTimeout = configuration.connectTimeout
        client.handshakeTimeout = configuration.connectTimeout
        client.maxMessageSize = max(client.maxMessageSize, configuration.limits.maxMessageSize)
        // Any message the limits allow may come as one frame (the reference sends one per message).
        client.maxFrameSize = max(client.maxFrameSize, client.maxMessageSize)
        self.url = url.absoluteString
        self.configuration = client
        self.eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        self.tracer = configuration.observability.activeTracer
    }

    /// Opens one connection.
    func connect() async throws(RpcError) -> any MessageTransport {
        do {
            var configuration = self.configuration
            if let tracer, let context = ServiceContext.current {
                TraceContextPropagation.inject(context, into: &configuration.headers, using: tracer)
            }
            return try await WebSocketClient.connect(to: url, configuration: configuration, eventLoopGroup: eventLoop)
        } catch {
            // A bad target comes back as the transport's `invalidTarget` error, like the checks above.
            throw .connectionLost(error)
        }
    }

    /// `headers` as HTTP headers, in name order so that requests are reproducible.
    static func headers(_ headers: [String: String]) -> HTTPHeaders {
        var result = HTTPHeaders()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            result.add(name: name, value: value)
        }
        return result
    }
}

public import RpcTransportNIO

extension TinyvexServer {
    /// The limits of the WebSockets a web framework's route hands to this server: the
    /// configuration's `maxMessageBytes` as the largest message and frame, and a WebSocket ping
    /// every `heartbeatInterval` as the connection's one liveness probe.
    public var transportConfiguration: HostedTransportConfiguration {
        var transport = HostedTransportConfiguration()
        transport.maxMessageSize = configuration.maxMessageBytes
        transport.maxFrameSize = configuration.maxMessageBytes
        transport.keepalive = WebSocketKeepalive(interval: configuration.heartbeatInterval)
        return transport
    }
}

import RpcTransport
import RpcTransportNIO

extension WebSocketClientConfiguration {
    /// A client configuration for the interop tests: short timeouts, and the given offers.
    static func interop(
        deflate: PerMessageDeflateConfiguration? = nil,
        subprotocols: [String] = [],
        tls: TLSClientConfiguration? = nil,
        maxMessageSize: Int? = nil
    ) -> WebSocketClientConfiguration {
        var configuration = WebSocketClientConfiguration(
            subprotocols: subprotocols,
            tls: tls,
            deflate: deflate,
            connectTimeout: .seconds(10),
            handshakeTimeout: .seconds(10),
            closeTimeout: .seconds(3)
        )
        if let maxMessageSize {
            configuration.maxMessageSize = maxMessageSize
        }
        return configuration
    }
}

/// Connects our client and returns the error the attempt failed with; `nil` when it connected
/// (the connection is then closed again).
func connectionError(to url: String, configuration: WebSocketClientConfiguration) async -> TransportError? {
    do {
        let transport = try await WebSocketClient.connect(to: url, configuration: configuration)
        await transport.close()
        return nil
    } catch {
        return error
    }
}

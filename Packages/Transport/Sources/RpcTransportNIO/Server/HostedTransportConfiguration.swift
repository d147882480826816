/// The limits of the WebSockets and HTTP requests a web framework's route (Vapor's, Hummingbird's)
/// hands to our transports: the same settings, with the same defaults, as a ``TransportServer``'s,
/// for the part of the work that is ours once the framework has routed the request. The framework
/// adapters name it `VaporTransportConfiguration` and `HummingbirdTransportConfiguration`.
///
/// ```swift
/// var configuration = HostedTransportConfiguration()
/// configuration.maxMessageSize = 1024 * 1024
/// configuration.deflate = .default
/// ```
public struct HostedTransportConfiguration: Sendable {
    /// permessage-deflate, used with each WebSocket client that offers it; `nil` (the default)
    /// declines every compression offer.
    public var deflate: PerMessageDeflateConfiguration?
    /// The largest WebSocket frame accepted from a client, in bytes. Default 32 MiB.
    public var maxFrameSize: Int
    /// The largest WebSocket message accepted from a client or given to send, in bytes; a
    /// larger one from the client closes the connection with 1009. Default 32 MiB.
    public var maxMessageSize: Int
    /// Messages longer than this are sent as several frames of at most this many bytes.
    /// Default 1 MiB.
    public var maxOutboundFrameSize: Int
    /// Small frames sent while a read is handled are gathered and written together up to this
    /// many bytes. Default 4 KiB.
    public var writeCoalescingLimit: Int
    /// How many bytes may wait to be written to one WebSocket before
    /// ``WebSocketTransport/send(_:)`` suspends and the client's frames stop
    /// being read. Default 8 MiB.
    public var outboundBufferLimit: Int
    /// The bytes that may wait for a client that does not read what it is sent; past them the
    /// connection is aborted with ``TransportError/Code/peerNotReading``.
    /// Default 64 MiB.
    public var maxPendingOutboundBytes: Int
    /// Keepalive pings on each WebSocket: by default a ping every 30 seconds, answered within
    /// 10. `nil` sends none.
    public var keepalive: WebSocketKeepalive?
    /// How long a WebSocket close handshake may take before the connection is cut.
    /// Default 5 seconds.
    public var closeTimeout: Duration
    /// How long a WebSocket frame that has begun to arrive may take to arrive whole; past it the
    /// connection fails with ``TransportError/Code/readTimeout``. Default 30 seconds.
    public var frameReadTimeout: Duration
    /// The largest HTTP request body read into an ``HTTPServerRequest``, in
    /// bytes; a larger one is refused with ``TransportError/Code/requestTooLarge``
    /// (413) before more than this is held. Default 8 MiB.
    public var maxRequestBodySize: Int

    /// Creates a configuration; every parameter has the default its property documents.
    public init(
        deflate: PerMessageDeflateConfiguration? = nil,
        maxFrameSize: Int = 32 * 1024 * 1024,
        maxMessageSize: Int = 32 * 1024 * 1024,
        maxOutboundFrameSize: Int = 1024 * 1024,
        writeCoalescingLimit: Int = 4 * 1024,
        outboundBufferLimit: Int = 8 * 1024 * 1024,
        maxPendingOutboundBytes: Int = 64 * 1024 * 1024,
        keepalive: WebSocketKeepalive? = WebSocketKeepalive(),
        closeTimeout: Duration = .seconds(5),
        frameReadTimeout: Duration = .seconds(30),
        maxRequestBodySize: Int = 8 * 1024 * 1024
    ) {
        self.deflate = deflate
        self.maxFrameSize = maxFrameSize
        self.maxMessageSize = maxMessageSize
        self.maxOutboundFrameSize = maxOutboundFrameSize
        self.writeCoalescingLimit = writeCoalescingLimit
        self.outboundBufferLimit = outboundBufferLimit
        self.maxPendingOutboundBytes = maxPendingOutboundBytes
        self.keepalive = keepalive
        self.closeTimeout = closeTimeout
        self.frameReadTimeout = frameReadTimeout
        self.maxRequestBodySize = maxRequestBodySize
    }

    /// The same limits as a transport server configuration, for the connection handler they
    /// share; the address is not used.
    package var serverConfiguration: TransportServerConfiguration {
        TransportServerConfiguration(
            address: .host("127.0.0.1", port: 0),
            deflate: deflate,
            maxFrameSize: maxFrameSize,
            maxMessageSize: maxMessageSize,
            maxOutboundFrameSize: maxOutboundFrameSize,
            writeCoalescingLimit: writeCoalescingLimit,
            outboundBufferLimit: outboundBufferLimit,
            maxPendingOutboundBytes: maxPendingOutboundBytes,
            keepalive: keepalive,
            closeTimeout: closeTimeout,
            frameReadTimeout: frameReadTimeout,
            maxRequestBodySize: maxRequestBodySize
        )
    }
}

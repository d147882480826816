public import NIOHTTP1
import NIOCore

/// How a ``WebSocketClient`` opens and runs a connection.
///
/// ```swift
/// var configuration = WebSocketClientConfiguration()
/// configuration.subprotocols = ["capnweb"]
/// configuration.deflate = .default
/// configuration.keepalive = WebSocketKeepalive(interval: .seconds(20), timeout: .seconds(5))
/// let transport = try await WebSocketClient.connect(to: "wss://api.example.com/rpc", configuration: configuration)
/// ```
public struct WebSocketClientConfiguration: Sendable {
    /// The path and query to request, for connections made to a ``TransportTarget``; a URL
    /// passed to ``WebSocketClient/connect(to:configuration:eventLoopGroup:logger:)`` brings its
    /// own. Default `/`.
    public var path: String
    /// Extra headers sent with the opening handshake (authorization, cookies, origin).
    public var headers: HTTPHeaders
    /// The subprotocols offered, most preferred first; the server's choice must be one of them.
    public var subprotocols: [String]
    /// TLS settings; `nil` for plaintext. `wss` URLs use ``TLSClientConfiguration/default`` when
    /// this is `nil`, `ws` URLs never use TLS.
    public var tls: TLSClientConfiguration?
    /// permessage-deflate settings; `nil` (the default) neither offers nor accepts compression.
    public var deflate: PerMessageDeflateConfiguration?
    /// How long establishing the TCP connection may take. Default 10 seconds.
    public var connectTimeout: Duration
    /// How long the TLS and WebSocket handshakes may take once connected. Default 10 seconds.
    public var handshakeTimeout: Duration
    /// The largest frame accepted from the server, in bytes. Default 32 MiB, the message
    /// limit, so that a peer may send any message it is allowed to in one frame.
    public var maxFrameSize: Int
    /// The largest message accepted from the server or given to send, in bytes. Default 32 MiB.
    public var maxMessageSize: Int
    /// Messages longer than this are sent as several frames of at most this many bytes.
    /// Default 1 MiB.
    public var maxOutboundFrameSize: Int
    /// Small frames sent while a read is handled, or within one event-loop tick, leave in one
    /// write; once this many bytes are gathered they are written at once, so that the peer can
    /// start on them while this side goes on producing. Default 4 KiB.
    public var writeCoalescingLimit: Int
    /// How many bytes may wait to be written before ``WebSocketTransport/send(_:)`` suspends.
    /// Default 8 MiB.
    public var outboundBufferLimit: Int
    /// The bytes that may wait for a server that does not read what it is sent; past them the
    /// connection is aborted with ``TransportError/Code/peerNotReading``. Default
    /// 64 MiB.
    public var maxPendingOutboundBytes: Int
    /// Keepalive pings, run by the ``KeepaliveScheduler`` until the connection
    /// closes; `nil` (the default) sends none.
    public var keepalive: WebSocketKeepalive?
    /// How long the close handshake may take before the connection is cut. Default 5 seconds.
    public var closeTimeout: Duration
    /// How long a frame from the server that has begun to arrive may take to arrive whole;
    /// past it the connection fails with ``TransportError/Code/readTimeout`` (close
    /// code 1008). Default 30 seconds.
    public var frameReadTimeout: Duration

    /// Creates a configuration; every parameter has the default its property documents.
    public init(
        path: String = "/",
        headers: HTTPHeaders = [:],
        subprotocols: [String] = [],
        tls: TLSClientConfiguration? = nil,
        deflate: PerMessageDeflateConfiguration? = nil,
        connectTimeout: Duration = .seconds(10),
        handshakeTimeout: Duration = .seconds(10),
        maxFrameSize: Int = 32 * 1024 * 1024,
        maxMessageSize: Int = 32 * 1024 * 1024,
        maxOutboundFrameSize: Int = 1024 * 1024,
        writeCoalescingLimit: Int = 4 * 1024,
        outboundBufferLimit: Int = 8 * 1024 * 1024,
        maxPendingOutboundBytes: Int = 64 * 1024 * 1024,
        keepalive: WebSocketKeepalive? = nil,
        closeTimeout: Duration = .seconds(5),
        frameReadTimeout: Duration = .seconds(30)
    ) {
        self.path = path
        self.headers = headers
        self.subprotocols = subprotocols
        self.tls = tls
        self.deflate = deflate
        self.connectTimeout = connectTimeout
        self.handshakeTimeout = handshakeTimeout
        self.maxFrameSize = maxFrameSize
        self.maxMessageSize = maxMessageSize
        self.maxOutboundFrameSize = maxOutboundFrameSize
        self.writeCoalescingLimit = writeCoalescingLimit
        self.outboundBufferLimit = outboundBufferLimit
        self.maxPendingOutboundBytes = maxPendingOutboundBytes
        self.keepalive = keepalive
        self.closeTimeout = closeTimeout
        self.frameReadTimeout = frameReadTimeout
    }

    /// The settings of the connections this configuration opens.
    var connectionSettings: WebSocketConnectionSettings {
        WebSocketConnectionSettings(
            role: .client,
            maxFrameSize: maxFrameSize,
            maxMessageSize: maxMessageSize,
            maxOutboundFrameSize: maxOutboundFrameSize,
            writeCoalescingLimit: max(writeCoalescingLimit, 1),
            outboundBufferLimit: outboundBufferLimit,
            // Never below what one message of the largest size needs on top of the buffer.
            maxPendingOutboundBytes: max(maxPendingOutboundBytes, outboundBufferLimit.saturatingAdding(maxMessageSize)),
            keepalive: keepalive,
            closeTimeout: TimeAmount(closeTimeout),
            frameReadTimeout: TimeAmount(frameReadTimeout)
        )
    }
}

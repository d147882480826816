import NIOCore
public import RpcTransport

/// Where a ``TransportServer`` listens and how it treats connections.
///
/// ```swift
/// var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
/// configuration.deflate = .default
/// configuration.upgradeHook = { request in
///     request.path == "/rpc" ? .accept(subprotocol: request.offeredSubprotocols.first) : .reject(status: 404)
/// }
/// ```
public struct TransportServerConfiguration: Sendable {
    /// Where the server listens.
    public enum Address: Sendable, Hashable, CustomStringConvertible {
        /// A host name or IP address and a port; port 0 picks a free port
        /// (read it from ``TransportServer/port``).
        case host(String, port: Int)
        /// A Unix domain socket at a file system path; an existing socket file there is replaced.
        case unixDomainSocket(path: String)

        /// `host:port` or `unix:path`.
        public var description: String {
            switch self {
            case .host(let host, let port): "\(host):\(port)"
            case .unixDomainSocket(let path): "unix:\(path)"
            }
        }
    }

    /// Where the server listens.
    public var address: Address
    /// TLS settings; `nil` (the default) for plaintext.
    public var tls: TLSServerConfiguration?
    /// permessage-deflate settings; `nil` (the default) declines every compression offer.
    public var deflate: PerMessageDeflateConfiguration?
    /// Decides about each WebSocket upgrade: refuse it with a status, or accept it with a
    /// subprotocol. `nil` (the default) accepts every upgrade without a subprotocol.
    public var upgradeHook: (@Sendable (WebSocketUpgradeRequest) async -> WebSocketUpgradeDecision)?
    /// The largest frame accepted from a client, in bytes. Default 32 MiB, the message
    /// limit, so that a peer may send any message it is allowed to in one frame.
    public var maxFrameSize: Int
    /// The largest WebSocket message accepted from a client or given to send, in bytes.
    /// Default 32 MiB.
    public var maxMessageSize: Int
    /// Messages longer than this are sent as several frames of at most this many bytes.
    /// Default 1 MiB.
    public var maxOutboundFrameSize: Int
    /// Small frames sent while a read is handled, or within one event-loop tick, leave in one
    /// write; once this many bytes are gathered they are written at once, so that the peer can
    /// start on them while this side goes on producing. Default 4 KiB.
    public var writeCoalescingLimit: Int
    /// How many bytes may wait to be written to one connection before
    /// ``WebSocketTransport/send(_:)`` suspends. Default 8 MiB.
    public var outboundBufferLimit: Int
    /// The bytes that may wait for a client that does not read what it is sent; past them the
    /// connection is aborted with ``TransportError/Code/peerNotReading``. Above
    /// ``outboundBufferLimit`` the client's frames are no longer read until it catches up, so a
    /// peer that only sends and never reads cannot make this side hold more. Default 64 MiB.
    public var maxPendingOutboundBytes: Int
    /// Keepalive pings on each accepted WebSocket connection, run by the
    /// ``KeepaliveScheduler`` until it closes. By default a ping every 30 seconds,
    /// answered within 10: a peer that answers may stay idle as long as it likes, one that has
    /// gone (or stalls in the middle of a frame) is closed. `nil` sends none.
    public var keepalive: WebSocketKeepalive?
    /// How long a WebSocket close handshake may take before the connection is cut. Default 5 seconds.
    public var closeTimeout: Duration
    /// How long a WebSocket frame from a client that has begun to arrive may take to arrive
    /// whole; past it the connection fails with ``TransportError/Code/readTimeout``
    /// (close code 1008). Default 30 seconds.
    public var frameReadTimeout: Duration
    /// How long any HTTP request (a batch, a routed request, a WebSocket upgrade) may take to
    /// arrive whole, from its first byte to the end of its body, however slowly the bytes
    /// trickle in; past it the server answers 408 and closes the connection (it only closes
    /// while the head is incomplete, or when the request was answered before its body ended).
    /// A request read while the one before it was being answered counts from its head.
    /// Default 30 seconds.
    public var requestReadTimeout: Duration
    /// The largest HTTP batch request body accepted, in bytes; larger ones are answered with 413.
    /// Default 32 MiB.
    public var maxBatchBodySize: Int
    /// The largest request body a request handler is given, in bytes; larger ones are answered
    /// with 413 without reaching it. Default 8 MiB.
    public var maxRequestBodySize: Int
    /// The answer to a request body over ``maxRequestBodySize``, given that limit, for a
    /// protocol whose clients read their own error body (a JSON error, say). Its status is
    /// always sent as 413; `content-length` and `connection` are set by the server. `nil` (the
    /// default) answers with a plain-text body. It runs on the connection's event loop, so it
    /// must not block. Batch requests over ``maxBatchBodySize`` always get the plain answer.
    public var requestTooLargeResponse: (@Sendable (_ limit: Int) -> HTTPServerResponse)? = nil
    /// How long the TLS handshake of a new connection may take. Default 10 seconds.
    public var handshakeTimeout: Duration
    /// How long an HTTP connection may sit without a request before it is closed. Default 60 seconds.
    public var idleTimeout: Duration
    /// After a 413 answer, how long the rest of the refused body is read and discarded before
    /// the connection is closed, so that the client can read the answer. Default 2 seconds.
    public var rejectedBodyDrainTimeout: Duration
    /// How long a graceful shutdown waits for batch requests and connection handlers to finish
    /// before it cuts what remains. Default 10 seconds.
    public var shutdownGracePeriod: Duration
    /// How long ``TransportServer/shutdownGracefully(drainTimeout:drain:)`` lets the calls in
    /// flight on open connections finish, after it stopped accepting and before it closes the
    /// WebSocket connections with 1001 (going away). Default 10 seconds.
    public var drainTimeout: Duration = .seconds(10)
    /// The listen backlog. Default 256.
    public var backlog: Int
    /// How long the server stops accepting when the process or the system is out of file
    /// descriptors (or of buffers for sockets), instead of retrying at once and spinning a
    /// core. Connections already open go on meanwhile. Default 1 second.
    public var acceptBackoff: Duration
    /// Where the server's metrics go (connections open, bytes in and out). Default: the
    /// process-wide factory, read when the server starts.
    public var observability: RpcObservability = RpcObservability()

    /// Creates a configuration; every parameter has the default its property documents.
    public init(
        address: Address,
        tls: TLSServerConfiguration? = nil,
        deflate: PerMessageDeflateConfiguration? = nil,
        upgradeHook: (@Sendable (WebSocketUpgradeRequest) async -> WebSocketUpgradeDecision)? = nil,
        maxFrameSize: Int = 32 * 1024 * 1024,
        maxMessageSize: Int = 32 * 1024 * 1024,
        maxOutboundFrameSize: Int = 1024 * 1024,
        writeCoalescingLimit: Int = 4 * 1024,
        outboundBufferLimit: Int = 8 * 1024 * 1024,
        maxPendingOutboundBytes: Int = 64 * 1024 * 1024,
        keepalive: WebSocketKeepalive? = WebSocketKeepalive(),
        closeTimeout: Duration = .seconds(5),
        frameReadTimeout: Duration = .seconds(30),
        requestReadTimeout: Duration = .seconds(30),
        maxBatchBodySize: Int = 32 * 1024 * 1024,
        maxRequestBodySize: Int = 8 * 1024 * 1024,
        handshakeTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        rejectedBodyDrainTimeout: Duration = .seconds(2),
        shutdownGracePeriod: Duration = .seconds(10),
        backlog: Int = 256,
        acceptBackoff: Duration = .seconds(1)
    ) {
        self.address = address
        self.tls = tls
        self.deflate = deflate
        self.upgradeHook = upgradeHook
        self.maxFrameSize = maxFrameSize
        self.maxMessageSize = maxMessageSize
        self.maxOutboundFrameSize = maxOutboundFrameSize
        self.writeCoalescingLimit = writeCoalescingLimit
        self.outboundBufferLimit = outboundBufferLimit
        self.maxPendingOutboundBytes = maxPendingOutboundBytes
        self.keepalive = keepalive
        self.closeTimeout = closeTimeout
        self.frameReadTimeout = frameReadTimeout
        self.requestReadTimeout = requestReadTimeout
        self.maxBatchBodySize = maxBatchBodySize
        self.maxRequestBodySize = maxRequestBodySize
        self.handshakeTimeout = handshakeTimeout
        self.idleTimeout = idleTimeout
        self.rejectedBodyDrainTimeout = rejectedBodyDrainTimeout
        self.shutdownGracePeriod = shutdownGracePeriod
        self.backlog = backlog
        self.acceptBackoff = acceptBackoff
    }

    /// The settings of the WebSocket connections this server accepts.
    var connectionSettings: WebSocketConnectionSettings {
        WebSocketConnectionSettings(
            role: .server,
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

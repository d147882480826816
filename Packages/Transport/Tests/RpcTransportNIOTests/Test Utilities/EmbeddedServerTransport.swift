import NIOCore
import NIOEmbedded

@testable import RpcTransportNIO

/// A server-side WebSocket transport installed on an active embedded channel, for tests that
/// feed the connection bytes by hand and read what it flushes.
enum EmbeddedServerTransport {
    /// The channel and its transport; limits of 1 MiB, `writeCoalescingLimit` as given.
    static func make(
        writeCoalescingLimit: Int = 4096,
        frameReadTimeout: TimeAmount = .seconds(30)
    ) throws -> (EmbeddedChannel, WebSocketTransport) {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        let settings = WebSocketConnectionSettings(
            role: .server,
            maxFrameSize: 1 << 20,
            maxMessageSize: 1 << 20,
            maxOutboundFrameSize: 1 << 20,
            writeCoalescingLimit: writeCoalescingLimit,
            outboundBufferLimit: 1 << 20,
            maxPendingOutboundBytes: 1 << 22,
            keepalive: nil,
            closeTimeout: .seconds(1),
            frameReadTimeout: frameReadTimeout
        )
        let transport = try WebSocketTransport.install(on: channel, settings: settings, subprotocol: nil, codec: nil)
        return (channel, transport)
    }

    /// The frames of every buffer `channel` has flushed since last asked, one array per buffer.
    static func flushedWrites(_ channel: EmbeddedChannel) throws -> [[TestFrame]] {
        var writes: [[TestFrame]] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            writes.append(TestFrame.parse(Array(buffer.readableBytesView)))
        }
        return writes
    }
}

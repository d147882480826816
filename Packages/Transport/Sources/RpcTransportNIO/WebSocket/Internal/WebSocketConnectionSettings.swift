import NIOCore

/// The per-connection settings of a WebSocket, whichever side opened it.
struct WebSocketConnectionSettings: Sendable {
    /// Which end of the connection this is; decides masking in both directions.
    enum Role: Sendable {
        /// The connecting side: masks what it sends, rejects masked frames.
        case client
        /// The accepting side: rejects unmasked frames, sends unmasked.
        case server
    }

    /// Which end this is.
    var role: Role
    /// The largest frame accepted from the peer, in bytes.
    var maxFrameSize: Int
    /// The largest message accepted from the peer or given to send, in bytes.
    var maxMessageSize: Int
    /// Outbound messages longer than this are split into frames of this size.
    var maxOutboundFrameSize: Int
    /// Bytes of small frames gathered before they are written and flushed without waiting for
    /// the end of the read burst or event-loop tick that produced them.
    var writeCoalescingLimit: Int
    /// Bytes that may wait to be written before `send` suspends and the peer's frames stop
    /// being read.
    var outboundBufferLimit: Int
    /// Bytes that may wait for a peer that does not read before the connection is aborted.
    var maxPendingOutboundBytes: Int
    /// Pings and their timeout; `nil` for none.
    var keepalive: WebSocketKeepalive?
    /// How long the close handshake may take before the connection is cut.
    var closeTimeout: TimeAmount
    /// How long a frame that has begun to arrive may take to arrive whole.
    var frameReadTimeout: TimeAmount

    /// The frame-size limit the frame reader applies: ``maxFrameSize``, but never below the
    /// 125 bytes every control frame may carry.
    var readerMaxFrameSize: Int {
        max(maxFrameSize, WebSocketFrameReader.maximumControlPayload)
    }

    /// The frame-size limit given to NIO's upgraders. They only check that it fits in 32 bits:
    /// frames are read by this endpoint's own reader, with ``readerMaxFrameSize``.
    var upgraderMaxFrameSize: Int {
        min(readerMaxFrameSize, Int(UInt32.max))
    }

    /// The write buffer water marks that make the channel unwritable above the outbound limit.
    var waterMark: ChannelOptions.Types.WriteBufferWaterMark {
        let high = max(outboundBufferLimit, 2)
        return ChannelOptions.Types.WriteBufferWaterMark(low: high / 2, high: high)
    }
}

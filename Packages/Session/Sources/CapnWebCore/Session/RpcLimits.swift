internal import RpcWire

/// Limits a session enforces on what the peer sends; exceeding one aborts the session with a
/// clear error (close code 3000) instead of consuming unbounded memory.
public struct RpcLimits: Sendable, Hashable {
    /// Deepest nesting of one message (the reference's default is 256).
    public var maxDepth: Int
    /// Most digits of a bigint, sign excluded (default 16384).
    public var maxBigIntDigits: Int
    /// Largest message in bytes (default 32 MiB). An answer that would be larger rejects its
    /// call instead (so does an HTTP batch's answer body as a whole).
    public var maxMessageSize: Int
    /// Most entries either table may hold at once (default 100 000). Calls the peer released
    /// while they still run count as export entries until they finish.
    public var maxTableEntries: Int
    /// Most writes a stream keeps unacknowledged before the writer waits (default 64).
    public var streamWindow: Int
    /// Most bytes of pushes whose results the peer has neither pulled nor released, held at
    /// once (default 64 MiB): a peer that sends large values and never asks for the results
    /// cannot grow the session past it. The results of those pushes count too, measured once
    /// they are known. Exceeding it aborts the session.
    public var maxUnpulledBytes: Int
    /// Most bytes of answers (`resolve` and `reject`) the session hands to the transport before
    /// the transport has written them out (default 64 MiB, the WebSocket transports'
    /// `maxPendingOutboundBytes`). An answer is measured against it before it is built, and
    /// again once encoded; one that would pass it is replaced by a rejection that says so, and
    /// the session goes on. So however often a peer asks for one large value (or one large
    /// rejection) in one burst of messages, the session never builds more than this much.
    public var maxPendingOutputBytes: Int

    /// Creates limits; every argument has the safe default.
    public init(
        maxDepth: Int = 256,
        maxBigIntDigits: Int = 16384,
        maxMessageSize: Int = 32 * 1024 * 1024,
        maxTableEntries: Int = 100_000,
        streamWindow: Int = 64,
        maxUnpulledBytes: Int = 64 * 1024 * 1024,
        maxPendingOutputBytes: Int = 64 * 1024 * 1024
    ) {
        self.maxDepth = maxDepth
        self.maxBigIntDigits = maxBigIntDigits
        self.maxMessageSize = maxMessageSize
        self.maxTableEntries = maxTableEntries
        self.streamWindow = streamWindow
        self.maxUnpulledBytes = maxUnpulledBytes
        self.maxPendingOutputBytes = maxPendingOutputBytes
    }

    /// The defaults.
    public static var `default`: RpcLimits { RpcLimits() }

    var codecConfiguration: CapnWebCodec.Configuration {
        CapnWebCodec.Configuration(
            maxDepth: maxDepth, maxBigIntDigits: maxBigIntDigits, maxMessageSize: maxMessageSize)
    }
}

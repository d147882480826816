import Foundation
public import RpcTransport

/// The limits and hooks of a ``TinyvexServer``; every limit has a safe default (see
/// docs/limits.md).
public struct TinyvexServerConfiguration: Sendable {
    /// Decides who a token belongs to: returns the identity, or `nil` to refuse the token
    /// (`TVX006`, `data.details.reason` `tokenRefused`); throws
    /// ``TinyvexServerError/tokenExpired(_:)`` for a token that has expired (`reason`
    /// `tokenExpired`; any other error it throws refuses the token). Without a hook every token
    /// is accepted and no identity is set.
    public typealias Authenticate = @Sendable (_ token: String) async throws -> String?

    /// Receives the server's log lines (a store it cannot fully use at start-up, say).
    public typealias Log = @Sendable (_ line: String) -> Void

    /// Live subscriptions one connection may hold; more are refused with `TVX002`.
    public var maxSubscriptionsPerConnection: Int
    /// The largest inbound message, in bytes; a larger one closes the connection (1009).
    public var maxMessageBytes: Int
    /// Messages waiting to be written to one connection past which its requests are no longer
    /// read until it catches up (each subscription has at most one value waiting).
    public var maxSendQueue: Int
    /// Bytes waiting to be written to one connection past which its requests are no longer
    /// read until it catches up. A value queued for several subscriptions is counted once.
    public var sendQueuePauseBytes: Int
    /// Bytes waiting to be written to one connection past which it is closed with 1008 (the
    /// client does not read what it asked for).
    public var maxSendQueueBytes: Int
    /// Bytes of requests one connection may have sent that wait to be handled; past them the
    /// connection is closed with 1008 (it sends faster than it is answered).
    public var maxInboundBacklogBytes: Int
    /// Actions one connection may have running; more are refused with `TVX003`.
    public var maxPendingActionsPerConnection: Int
    /// The longest `requestId`, `subId` or `clientId`, in UTF-8 bytes; longer ones are refused
    /// with `-32602`.
    public var maxIdentifierBytes: Int
    /// The longest query params of a subscription, as JSON text in bytes; longer ones are
    /// refused with `TVX002`.
    public var maxSubscriptionParamsBytes: Int
    /// How long an HTTP request (a WebSocket upgrade, or any other request, which is refused)
    /// may take from its first byte to the end of its body; past it the connection is closed.
    public var requestReadTimeout: Duration
    /// How long ``TinyvexServer/shutdownGracefully()`` lets the requests being answered finish
    /// before it closes the connections still open with 1001 (going away). Default 10 seconds.
    public var drainTimeout: Duration = .seconds(10)
    /// Values whose JSON text is longer than this many bytes go out as `transitionChunk`s.
    public var maxChunkBytes: Int
    /// How long one query evaluation may take before it fails with `TVX007`.
    public var maxEvaluationTime: Duration
    /// Where the server's metrics and spans go: the `tinyvex_mutations` and
    /// `tinyvex_query_evaluations` metrics, `tinyvex_subscriptions_live`, and a span per mutation
    /// and query evaluation. Default: the process-wide factory and tracer, read when the server
    /// starts.
    public var observability: RpcObservability = RpcObservability()
    /// How long an action may run before its caller gets `TVX007`.
    public var actionTimeout: Duration
    /// How often the server pings each WebSocket connection (a WebSocket ping; one not answered
    /// within 10 s closes the connection).
    public var heartbeatInterval: Duration
    /// How many mutation results are kept for answering resent `requestId`s.
    public var mutationResultRetention: Int
    /// How many bytes of mutation results (their keys and values) are kept; the oldest are
    /// forgotten past it (the newest one is always kept).
    public var mutationResultRetentionBytes: Int
    /// How far a commit is on its way to the disk before its mutations are answered (a
    /// database file only): ``TinyvexDurability/full`` by default.
    public var durability: TinyvexDurability
    /// The most mutations that share one transaction (and one sync to the disk). Mutations
    /// that arrive while the engine is busy are committed together, each in its own savepoint
    /// and with its own version, in arrival order; more than this many wait for the next commit.
    public var maxMutationsPerCommit: Int
    /// The most items one page of a paginated query may ask for (`paginationOpts.numItems`);
    /// more are refused with `TVX002`.
    public var maxPaginationItems: Int
    /// The most scheduled functions waiting to run; a mutation or action scheduling one more
    /// fails with `TVX003` (and nothing of the mutation is kept).
    public var maxPendingScheduledFunctions: Int
    /// The furthest ahead a function may be scheduled; a later time fails with `TVX003`.
    public var maxScheduleDelay: Duration
    /// The auth hook for `tinyvex/connect` and `tinyvex/auth.setToken`.
    public var authenticate: Authenticate?
    /// Where log lines go; `nil` (the default) writes them to standard error.
    public var log: Log?

    /// Creates a configuration with the protocol's default limits.
    public init(
        maxSubscriptionsPerConnection: Int = 1_000,
        maxMessageBytes: Int = 1 << 20,
        maxSendQueue: Int = 100,
        sendQueuePauseBytes: Int = 4 << 20,
        maxSendQueueBytes: Int = 32 << 20,
        maxInboundBacklogBytes: Int = 8 << 20,
        maxPendingActionsPerConnection: Int = 64,
        maxIdentifierBytes: Int = 256,
        maxSubscriptionParamsBytes: Int = 16 << 10,
        maxChunkBytes: Int = 64 * 1024,
        requestReadTimeout: Duration = .seconds(5),
        maxEvaluationTime: Duration = .seconds(5),
        actionTimeout: Duration = .seconds(30),
        heartbeatInterval: Duration = .seconds(15),
        mutationResultRetention: Int = 10_000,
        mutationResultRetentionBytes: Int = 64 << 20,
        durability: TinyvexDurability = .full,
        maxMutationsPerCommit: Int = 256,
        maxPaginationItems: Int = TinyvexServerConfiguration.defaultMaxPaginationItems,
        maxPendingScheduledFunctions: Int = 10_000,
        maxScheduleDelay: Duration = .seconds(366 * 24 * 3600),
        authenticate: Authenticate? = nil,
        log: Log? = nil
    ) {
        self.maxSubscriptionsPerConnection = maxSubscriptionsPerConnection
        self.maxMessageBytes = maxMessageBytes
        self.maxSendQueue = maxSendQueue
        self.sendQueuePauseBytes = sendQueuePauseBytes
        self.maxSendQueueBytes = maxSendQueueBytes
        self.maxInboundBacklogBytes = maxInboundBacklogBytes
        self.maxPendingActionsPerConnection = maxPendingActionsPerConnection
        self.maxIdentifierBytes = maxIdentifierBytes
        self.maxSubscriptionParamsBytes = maxSubscriptionParamsBytes
        self.maxChunkBytes = maxChunkBytes
        self.requestReadTimeout = requestReadTimeout
        self.maxEvaluationTime = maxEvaluationTime
        self.actionTimeout = actionTimeout
        self.heartbeatInterval = heartbeatInterval
        self.mutationResultRetention = mutationResultRetention
        self.mutationResultRetentionBytes = mutationResultRetentionBytes
        self.durability = durability
        self.maxMutationsPerCommit = maxMutationsPerCommit
        self.maxPaginationItems = maxPaginationItems
        self.maxPendingScheduledFunctions = maxPendingScheduledFunctions
        self.maxScheduleDelay = maxScheduleDelay
        self.authenticate = authenticate
        self.log = log
    }
}

extension TinyvexServerConfiguration {
    /// The default of ``maxPaginationItems``.
    public static let defaultMaxPaginationItems = 1_000

    /// Writes a log line through ``log``, or to standard error.
    func emit(_ line: String) {
        if let log {
            log(line)
        } else {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }
}

import Foundation
public import RpcTransport

/// Where an actor server listens and the limits it keeps.
///
/// ```swift
/// var configuration = ActorServerConfiguration(host: "127.0.0.1", port: 6420)
/// configuration.token = "secret"
/// configuration.sleepTimeout = .seconds(30)
/// ```
public struct ActorServerConfiguration: Sendable {
    /// The address to listen on. Default `127.0.0.1`.
    public var host: String
    /// The port; 0 picks a free one. Default 6420, RivetKit's.
    public var port: Int
    /// When set, every request must carry this token (`Authorization: Bearer` or
    /// `x-rivet-token` for HTTP, the `@token` path segment or `rvt-token` for the gateway);
    /// others get `auth.unauthorized`. Default `nil`: no token needed.
    public var token: String?
    /// The largest WebSocket message or HTTP body accepted, in bytes; a larger frame closes
    /// its connection, a larger body gets 413 with RivetKit's JSON error
    /// `message.incoming_too_long`. Default 1 MiB.
    public var maxMessageSize: Int
    /// How many actions one connection may have waiting or running; more are refused with
    /// `action.too_many_in_flight`. Default 64.
    public var maxActionsInFlightPerConnection: Int
    /// How many realtime connections one actor accepts; more are closed with
    /// `actor.too_many_connections`. Default 10,000.
    public var maxConnectionsPerActor: Int
    /// How long an actor with no connection, no HTTP request and no `keepAwake` work stays in
    /// memory before it sleeps (`onSleep` runs; its state is already saved; the next request
    /// wakes it and `onWake` runs). An actor type's ``ActorDefinitionOptions/sleepTimeout``
    /// overrides it. Default 30 seconds, RivetKit's.
    public var sleepTimeout: Duration
    /// How long sleep and destroy wait for an actor's `runInBackground` and `keepAwake` work before
    /// cancelling it. Default 15 seconds, RivetKit's.
    public var sleepGracePeriod: Duration
    /// How long one action may run before its caller gets `actor.action_timed_out` (HTTP 408,
    /// or an `Error` frame for that action on a realtime connection, which stays open); the
    /// action is cancelled. An actor type's ``ActorDefinitionOptions/actionTimeout`` overrides
    /// it. Default 60 seconds, RivetKit's.
    public var actionTimeout: Duration
    /// Where the server's metrics and spans go: the `rivetkit_actions` metrics,
    /// `rivetkit_actors_awake` and a span per action. Default: the process-wide factory and
    /// tracer, read when the server starts.
    public var observability: RpcObservability = RpcObservability()
    /// How many bytes of frames may wait for one realtime connection that does not read;
    /// past it that connection is cut, so a slow subscriber cannot make the server hold more.
    /// Default 8 MiB.
    public var maxPendingBytesPerConnection: Int
    /// How many distinct events one realtime connection may subscribe to; a subscription past
    /// it gets a connection-level `Error` frame `connection.too_many_subscriptions` (the
    /// connection stays, its other subscriptions too). Default 1,000.
    public var maxSubscriptionsPerConnection: Int
    /// How many bytes of event names (UTF-8) one realtime connection's subscriptions may hold;
    /// past it as for ``maxSubscriptionsPerConnection``. Default 64 KiB.
    public var maxSubscriptionBytesPerConnection: Int
    /// How many bytes of action frames one realtime connection may have waiting or running;
    /// an action past it gets an `Error` frame `action.too_many_pending_bytes` (its own
    /// `actionId`; the connection stays). Default 4 MiB.
    public var maxPendingActionBytesPerConnection: Int
    /// Where the server reports what it cannot serve but keeps running through, such as an
    /// actor whose saved state cannot be read (that actor's callers get
    /// `actor.state_unreadable`). Default: a line on standard error.
    public var reportProblem: @Sendable (String) -> Void
    /// How long one HTTP request may take to arrive, from its first byte to the end of its body,
    /// however slowly it trickles in; past it the server answers 408 and closes the connection.
    /// Default 30 seconds.
    public var requestReadTimeout: Duration
    /// How long ``ActorServer/shutdownGracefully()`` lets the actions in flight finish before it
    /// closes the realtime connections still open with 1001 (going away). Default 10 seconds.
    public var drainTimeout: Duration = .seconds(10)
    /// The largest state one actor may keep, in bytes of JSON; an action that leaves a larger
    /// state (or one JSON cannot hold, such as a non-finite number) fails with
    /// `actor.state_too_large` (`actor.state_invalid`) and the state stays as it was, so one
    /// actor cannot make the server hold, encode and save without bound. Default 16 MiB.
    public var maxStateSize: Int
    /// The most pending schedules one actor may have; `schedule.after`/`at` past it fails with
    /// `schedule.max_schedules_exceeded`. Default 1,000.
    public var maxSchedules: Int
    /// The endpoint other nodes forward requests for this server's actors to, when its store
    /// places actors on several servers (``ActorLeaseStore``); `nil` (the default) for the
    /// server's own `http://host:port`, which suits a server listening on a routable address.
    public var advertisedEndpoint: String?

    /// Creates a configuration; every parameter has the default its property documents.
    public init(
        host: String = "127.0.0.1",
        port: Int = 6420,
        token: String? = nil,
        maxMessageSize: Int = 1024 * 1024,
        maxActionsInFlightPerConnection: Int = 64,
        maxConnectionsPerActor: Int = 10_000,
        sleepTimeout: Duration = .seconds(30),
        sleepGracePeriod: Duration = .seconds(15),
        actionTimeout: Duration = .seconds(60),
        maxPendingBytesPerConnection: Int = 8 * 1024 * 1024,
        maxSubscriptionsPerConnection: Int = 1_000,
        maxSubscriptionBytesPerConnection: Int = 64 * 1024,
        maxPendingActionBytesPerConnection: Int = 4 * 1024 * 1024,
        reportProblem: @escaping @Sendable (String) -> Void = ActorServerConfiguration.standardErrorReport,
        requestReadTimeout: Duration = .seconds(30),
        maxStateSize: Int = 16 * 1024 * 1024,
        maxSchedules: Int = 1_000
    ) {
        self.host = host
        self.port = port
        self.token = token
        self.maxMessageSize = maxMessageSize
        self.maxActionsInFlightPerConnection = maxActionsInFlightPerConnection
        self.maxConnectionsPerActor = maxConnectionsPerActor
        self.sleepTimeout = sleepTimeout
        self.sleepGracePeriod = sleepGracePeriod
        self.actionTimeout = actionTimeout
        self.maxPendingBytesPerConnection = maxPendingBytesPerConnection
        self.maxSubscriptionsPerConnection = maxSubscriptionsPerConnection
        self.maxSubscriptionBytesPerConnection = maxSubscriptionBytesPerConnection
        self.maxPendingActionBytesPerConnection = maxPendingActionBytesPerConnection
        self.reportProblem = reportProblem
        self.requestReadTimeout = requestReadTimeout
        self.maxStateSize = maxStateSize
        self.maxSchedules = maxSchedules
    }

    /// Writes `problem` as one line on standard error, prefixed `rivetkit server:`.
    public static func standardErrorReport(_ problem: String) {
        FileHandle.standardError.write(Data("rivetkit server: \(problem)\n".utf8))
    }
}

public import RpcWire

/// The identity of an ``ActorError``: its group and its code, such as `client` / `disposed`.
///
/// The catalogue below names every code the client makes (group `client`) and every code of
/// RivetKit's groups it knows (`actor`, `message`, `action`, `connection`, `request`, `auth`,
/// `rivetkit`); an actor's own codes (group `user`, or any other) are made with
/// ``init(group:code:)``. Match an error against the catalogue with ``ActorError/errorCode``:
///
/// ```swift
/// catch let error as ActorError where error.errorCode == .clientConnectionLost { … }
/// ```
public struct ActorErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The error's group, such as `client` or `actor`.
    public var group: String
    /// The code within the group, such as `not_found`.
    public var code: String

    /// Creates a code; the catalogue's are the static members.
    public init(group: String, code: String) {
        self.group = group
        self.code = code
    }

    /// `group.code`, for example `client.disposed`.
    public var description: String { "\(group).\(code)" }

    /// An error of this code with `message` and `metadata`.
    public func error(_ message: String = "", metadata: JSONValue? = nil) -> ActorError {
        ActorError(group: group, code: code, message: message, metadata: metadata)
    }

    // MARK: The client's codes (group `client`, origin local)

    /// The connection was disposed by its owner; its pending actions fail with this.
    public static let clientDisposed = client("disposed")
    /// The connection closed while actions were pending and could not be made again.
    public static let clientConnectionLost = client("connection_lost")
    /// The connection could not be opened (refused, handshake failed, protocol not selected).
    public static let clientConnectionOpenFailed = client("connection_open_failed")
    /// A setting cannot be used: the endpoint, the connection parameters, the encoding.
    public static let clientConfigError = client("config_error")
    /// A value from the server does not decode as the requested type.
    public static let clientDecodeError = client("decode_error")
    /// An argument cannot be encoded.
    public static let clientEncodeError = client("encode_error")
    /// The client broke one of its own invariants.
    public static let clientInternalError = client("internal_error")
    /// The client was closed by its owner.
    public static let clientClosed = client("closed")
    /// The operation was cancelled.
    public static let clientCancelled = client("cancelled")
    /// An HTTP request to the server failed, or its answer is not what the protocol says.
    public static let clientHTTPError = client("http_error")
    /// The actor is not connected (a disabled actor view).
    public static let clientNotConnected = client("not_connected")
    /// An action got no answer within ``ClientConfig/actionTimeout``.
    public static let clientActionTimeout = client("action_timeout")

    // MARK: RivetKit's codes the client recognises (origin remote)

    /// The actor, or the actor type, does not exist (`actor.not_found`).
    public static let actorNotFound = ActorErrorCode(group: "actor", code: "not_found")
    /// An actor key is not written as RivetKit writes keys.
    public static let actorInvalidKey = ActorErrorCode(group: "actor", code: "invalid_key")
    /// The actor is starting; a key-based connection looks it up again.
    public static let actorStarting = ActorErrorCode(group: "actor", code: "starting")
    /// The actor is stopping; a key-based connection looks it up again.
    public static let actorStopping = ActorErrorCode(group: "actor", code: "stopping")
    /// The actor is not configured; a key-based connection looks it up again.
    public static let actorNotConfigured = ActorErrorCode(group: "actor", code: "not_configured")
    /// The actor dropped a reply; a key-based connection looks it up again.
    public static let actorDroppedReply = ActorErrorCode(group: "actor", code: "dropped_reply")
    /// An actor with that key exists already.
    public static let actorDuplicateKey = ActorErrorCode(group: "actor", code: "duplicate_key")
    /// The actor's stored state cannot be read.
    public static let actorStateUnreadable = ActorErrorCode(group: "actor", code: "state_unreadable")
    /// The actor's new state cannot be stored as JSON.
    public static let actorStateInvalid = ActorErrorCode(group: "actor", code: "state_invalid")
    /// The actor's new state is larger than the server stores.
    public static let actorStateTooLarge = ActorErrorCode(group: "actor", code: "state_too_large")
    /// The actor holds as many connections as it accepts.
    public static let actorTooManyConnections = ActorErrorCode(group: "actor", code: "too_many_connections")
    /// The actor was destroyed while the connection was open (one of the `destroyed_*` codes).
    public static let actorDestroyedWhileConnected = ActorErrorCode(group: "actor", code: "destroyed_while_connected")
    /// An action ran past the actor's action timeout (`actor.action_timed_out`).
    public static let actorActionTimedOut = ActorErrorCode(group: "actor", code: "action_timed_out")
    /// An actor has as many pending schedules as the server allows (`maxSchedules`).
    public static let scheduleMaxSchedulesExceeded = ActorErrorCode(group: "schedule", code: "max_schedules_exceeded")
    /// A schedule's delay or time cannot be represented (out of range, not finite).
    public static let scheduleInvalidTime = ActorErrorCode(group: "schedule", code: "invalid_time")
    /// A frame or body that does not follow RivetKit's protocol.
    public static let messageMalformed = ActorErrorCode(group: "message", code: "malformed")
    /// An incoming message is longer than the server accepts.
    public static let messageIncomingTooLong = ActorErrorCode(group: "message", code: "incoming_too_long")
    /// An outgoing message is longer than the server sends.
    public static let messageOutgoingTooLong = ActorErrorCode(group: "message", code: "outgoing_too_long")
    /// The actor has no action of that name.
    public static let actionNotFound = ActorErrorCode(group: "action", code: "not_found")
    /// The connection has as many actions in flight as the server accepts.
    public static let actionTooManyInFlight = ActorErrorCode(group: "action", code: "too_many_in_flight")
    /// The connection's pending actions hold as many bytes as the server accepts.
    public static let actionTooManyPendingBytes = ActorErrorCode(group: "action", code: "too_many_pending_bytes")
    /// The connection did not read what the server sent, past the server's limit.
    public static let connectionOutboundFull = ActorErrorCode(group: "connection", code: "outbound_full")
    /// The connection holds as many subscriptions as the server accepts.
    public static let connectionTooManySubscriptions = ActorErrorCode(group: "connection", code: "too_many_subscriptions")
    /// A request the server cannot use (a bad body, method, input or encoding).
    public static let requestInvalid = ActorErrorCode(group: "request", code: "invalid")
    /// Connection parameters that are missing or do not decode.
    public static let requestInvalidParams = ActorErrorCode(group: "request", code: "invalid_params")
    /// A path that is not a route of the server.
    public static let requestNotFound = ActorErrorCode(group: "request", code: "not_found")
    /// A valid token is required.
    public static let authUnauthorized = ActorErrorCode(group: "auth", code: "unauthorized")
    /// The server failed in a way it does not describe.
    public static let rivetkitInternalError = ActorErrorCode(group: "rivetkit", code: "internal_error")

    /// Every code of the catalogue, client codes first (for exhaustive tests and documentation).
    package static let all: [ActorErrorCode] = [
        .clientDisposed, .clientConnectionLost, .clientConnectionOpenFailed, .clientConfigError, .clientDecodeError,
        .clientEncodeError, .clientInternalError, .clientClosed, .clientCancelled, .clientHTTPError,
        .clientNotConnected, .clientActionTimeout,
        .actorNotFound, .actorInvalidKey, .actorStarting, .actorStopping, .actorNotConfigured, .actorDroppedReply,
        .actorDuplicateKey, .actorStateUnreadable, .actorStateInvalid, .actorStateTooLarge,
        .actorTooManyConnections, .actorDestroyedWhileConnected, .actorActionTimedOut,
        .scheduleMaxSchedulesExceeded, .scheduleInvalidTime,
        .messageMalformed, .messageIncomingTooLong, .messageOutgoingTooLong,
        .actionNotFound, .actionTooManyInFlight, .actionTooManyPendingBytes,
        .connectionOutboundFull, .connectionTooManySubscriptions,
        .requestInvalid, .requestInvalidParams, .requestNotFound,
        .authUnauthorized, .rivetkitInternalError,
    ]

    /// The `actor` codes after which a key-based connection looks the actor up again:
    /// `not_found`, `starting`, `stopping`, `not_configured`, `dropped_reply` and any
    /// `destroyed_*` code.
    public var isStaleActor: Bool {
        guard group == "actor" else { return false }
        return [Self.actorNotFound, .actorStarting, .actorStopping, .actorNotConfigured, .actorDroppedReply].contains(self)
            || code.hasPrefix("destroyed_")
    }

    /// Whether this process made the error: only the client's own group, `client`, is local;
    /// every other group is reported by the server.
    public var origin: RpcFailure.Origin { group == "client" ? .local : .remote }

    /// The ``RpcFailure/Code`` this code maps to.
    ///
    /// | Codes | RpcFailure code |
    /// |---|---|
    /// | `client.disposed`, `client.closed`, `client.connection_lost`, `client.connection_open_failed`, `client.not_connected`, `client.http_error` | `unavailable` |
    /// | `client.config_error`, `client.encode_error` | `invalidArgument` |
    /// | `client.decode_error`, `client.internal_error` | `internalError` |
    /// | `client.cancelled` | `cancelled` |
    /// | `client.action_timeout`, `actor.action_timed_out` | `deadlineExceeded` |
    /// | `actor.not_found`, `request.not_found` | `notFound` |
    /// | `actor.invalid_key`, `actor.state_invalid`, `schedule.invalid_time`, `request.invalid`, `request.invalid_params` | `invalidArgument` |
    /// | `actor.starting`, `actor.stopping`, `actor.not_configured`, `actor.dropped_reply`, `actor.destroyed_*` | `unavailable` |
    /// | `actor.duplicate_key` | `alreadyExists` |
    /// | `actor.state_unreadable` | `dataLoss` |
    /// | `actor.state_too_large`, `actor.too_many_connections`, `schedule.max_schedules_exceeded`, `message.incoming_too_long`, `message.outgoing_too_long`, `action.too_many_in_flight`, `action.too_many_pending_bytes`, `connection.outbound_full`, `connection.too_many_subscriptions` | `resourceExhausted` |
    /// | `message.malformed`, `rivetkit.internal_error` | `internalError` |
    /// | `action.not_found` | `unimplemented` |
    /// | `auth.unauthorized` | `unauthenticated` |
    /// | any other (an actor's own, such as `user.*`) | `unknown` |
    public var rpcFailureCode: RpcFailure.Code {
        switch self {
        case .clientDisposed, .clientClosed, .clientConnectionLost, .clientConnectionOpenFailed, .clientNotConnected,
            .clientHTTPError:
            .unavailable
        case .clientConfigError, .clientEncodeError: .invalidArgument
        case .clientDecodeError, .clientInternalError: .internalError
        case .clientCancelled: .cancelled
        case .clientActionTimeout, .actorActionTimedOut: .deadlineExceeded
        case .actorNotFound, .requestNotFound: .notFound
        case .actorInvalidKey, .actorStateInvalid, .scheduleInvalidTime, .requestInvalid, .requestInvalidParams:
            .invalidArgument
        case .actorStarting, .actorStopping, .actorNotConfigured, .actorDroppedReply: .unavailable
        case .actorDuplicateKey: .alreadyExists
        case .actorStateUnreadable: .dataLoss
        case .actorStateTooLarge, .actorTooManyConnections, .scheduleMaxSchedulesExceeded, .messageIncomingTooLong,
            .messageOutgoingTooLong, .actionTooManyInFlight, .actionTooManyPendingBytes, .connectionOutboundFull,
            .connectionTooManySubscriptions:
            .resourceExhausted
        case .messageMalformed, .rivetkitInternalError: .internalError
        case .actionNotFound: .unimplemented
        case .authUnauthorized: .unauthenticated
        default: group == "actor" && code.hasPrefix("destroyed_") ? .unavailable : .unknown
        }
    }

    /// A code of the `client` group.
    private static func client(_ code: String) -> ActorErrorCode {
        ActorErrorCode(group: "client", code: code)
    }
}

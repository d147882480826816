import RpcTransportNIO
import Synchronization
import RpcWire

/// A realtime connection to one actor over RivetKit's gateway WebSocket, kept alive by the
/// shared ``RpcTransport/ReconnectingConnection``.
///
/// "Connected" means the actor's `Init` arrived. Actions made before that are queued and sent
/// after it; every active event subscription is sent again after each `Init`, before the
/// queued actions. A lost connection rejects the actions in flight (with the close reason's
/// structured error when it has one), reports the error, and reconnects with the configured
/// backoff (250 ms to 30 s).
///
/// Before the first `Init`, a failure to open is retried with the same backoff (growing across
/// attempts) only when it says the actor is stale (``ActorCloseReason/isStaleActor``: not
/// found yet, starting, stopping, destroyed; for an id handle only the passing states, as an
/// id that is not found stays so); any other (a refused token, an unreachable server, a creation input
/// over ``ClientConfig/maxInputSize``) rejects the waiting actions, is reported once (as
/// `client.connection_open_failed` unless it is already structured) and goes back to
/// ``ActorConnStatus/idle`` without retrying.
///
/// ```swift
/// let connection = client.getOrCreate("counter", key: ["a"]).connect()
/// connection.start()
/// for await args in connection.events("newCount") { print(args) }
/// ```
public final class ActorConnection: Sendable {
    /// The actor's identity and options.
    public let options: ActorOptions
    let client: RivetKitClient

    private struct Waiting {
        var continuation: CheckedContinuation<JSONValue, any Error>
        var frame: [UInt8]
        var sent: Bool
    }

    private struct State {
        var status: ActorConnStatus = .idle
        var actorId: String?
        var connectionId: String?
        var transport: (any MessageTransport)?
        var waiting: [UInt64: Waiting] = [:]
        var queue: [UInt64] = []
        var subscriptions: [String: [UInt64: AsyncStream<[JSONValue]>.Continuation]] = [:]
        var errorListeners: [UInt64: AsyncStream<ActorError>.Continuation] = [:]
        var statusListeners: [UInt64: AsyncStream<ActorConnStatus>.Continuation] = [:]
        var nextListener: UInt64 = 0
        var reconnecting: ReconnectingConnection?
        var runner: Task<Void, Never>?
        var lastError: ActorError?
        /// Until the first `Init` after ``start()``: where the open's outcome goes (the
        /// transport it concerns, and `nil` for `Init` or the close's error).
        var opening: AsyncStream<OpenOutcome>.Continuation?
        /// Closes the newest socket if the actor's `Init` does not arrive on it in time.
        var initWatchdog: Task<Void, Never>?
        /// Before the first `Init`: whether the attempt start()'s loop began may still open a
        /// socket (one socket per attempt; the reconnecting connection's own retries wait
        /// until the loop hands over).
        var mayOpen = false
    }

    /// How one open attempt ended: the actor's `Init` (`failure` `nil`) or a close before it.
    private struct OpenOutcome: Sendable {
        var transport: ObjectIdentifier?
        var failure: ActorError?
    }

    private let state = Mutex(State())
    private let nextActionId = Atomic<UInt64>(0)

    init(client: RivetKitClient, options: ActorOptions) {
        self.client = client
        self.options = options
    }

    // MARK: Observing

    /// The current status.
    public var status: ActorConnStatus { state.withLock { $0.status } }
    /// The actor's id, once an `Init` arrived.
    public var actorId: String? { state.withLock { $0.actorId } }
    /// This connection's id at the actor, once an `Init` arrived.
    public var connectionId: String? { state.withLock { $0.connectionId } }
    /// The last connection-level error.
    public var lastError: ActorError? { state.withLock { $0.lastError } }

    /// How many actions wait for their answer (sent or held until connected): lets tests see
    /// that an action was made instead of guessing at its timing.
    var pendingActionCount: Int { state.withLock { $0.waiting.count } }

    /// The executor of the event loop the current socket reads and writes on, once connected;
    /// `nil` before that and while reconnecting (a new socket may run on another loop).
    ///
    /// Awaiting actions from code that prefers this executor costs no hand-off between threads:
    /// each request is written, and its answer resumes the caller, on the socket's own thread.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(connection.executor) {
    ///     for _ in 0 ..< 100 { _ = try await connection.action("getCount", args: []) }
    /// }
    /// ```
    ///
    /// Code running there shares the thread with the socket's I/O: move blocking or long
    /// computations off it (`withTaskExecutorPreference(globalConcurrentExecutor) { … }`).
    public var executor: (any TaskExecutor)? {
        state.withLock { $0.status == .connected ? $0.transport?.executor : nil }
    }

    /// The statuses from now on, starting with the current one.
    public func statusUpdates() -> AsyncStream<ActorConnStatus> {
        let (stream, continuation) = AsyncStream<ActorConnStatus>.makeStream()
        let id = state.withLock { state -> UInt64 in
            state.nextListener += 1
            state.statusListeners[state.nextListener] = continuation
            continuation.yield(state.status)
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.statusListeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Connection-level errors from now on: lost connections, `Error` frames without an
    /// action, open failures.
    public func errors() -> AsyncStream<ActorError> {
        let (stream, continuation) = AsyncStream<ActorError>.makeStream()
        let id = state.withLock { state -> UInt64 in
            state.nextListener += 1
            state.errorListeners[state.nextListener] = continuation
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.errorListeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// The positional arguments of every event `name` from now on. The first listener of a
    /// name subscribes (`SubscriptionRequest` with `subscribe: true`), the last one to go
    /// unsubscribes.
    public func events(_ name: String) -> AsyncStream<[JSONValue]> {
        let (stream, continuation) = AsyncStream<[JSONValue]>.makeStream(
            bufferingPolicy: .bufferingNewest(max(client.config.maxBufferedEvents, 1)))
        let id = state.withLock { state -> UInt64 in
            state.nextListener += 1
            let first = state.subscriptions[name]?.isEmpty ?? true
            state.subscriptions[name, default: [:]][state.nextListener] = continuation
            if first, state.status == .connected, let transport = state.transport {
                Self.send(.subscriptionRequest(eventName: name, subscribe: true), on: transport)
            }
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.subscriptions[name]?[id] = nil
                guard state.subscriptions[name]?.isEmpty == true else { return }
                state.subscriptions[name] = nil
                if state.status == .connected, let transport = state.transport {
                    Self.send(.subscriptionRequest(eventName: name, subscribe: false), on: transport)
                }
            }
        }
        return stream
    }

    // MARK: Lifecycle

    /// Starts connecting (from ``ActorConnStatus/idle``; otherwise does nothing).
    public func start() {
        let (outcomes, sink) = AsyncStream<OpenOutcome>.makeStream()
        let started = state.withLock { state -> ReconnectingConnection? in
            guard state.status == .idle, state.reconnecting == nil else { return nil }
            let connection = ReconnectingConnection(
                configuration: ReconnectingConnectionConfiguration(
                    reconnect: ReconnectPolicy(maxAttempts: nil, backoff: client.config.reconnectBackoff),
                    connectTimeout: client.config.connectTimeout,
                    offlineQueueLimit: 0),
                factory: { [weak self, client, options] _ in
                    guard self?.takeOpenPermit() ?? false else {
                        // Waits for the loop to stop this connection, which cancels the wait,
                        // rather than failing at once and being retried in a tight loop.
                        try await Task.sleep(for: client.config.connectTimeout)
                        throw ActorError(
                            group: "client", code: "connection_open_failed",
                            message: "an attempt to open is under way before the actor's first Init")
                    }
                    return try await Self.open(client: client, options: options)
                },
                handler: .transports { [weak self] transport, _ in self?.attach(transport) })
            state.reconnecting = connection
            state.status = .connecting
            state.opening = sink
            return connection
        }
        guard let started else {
            sink.finish()
            return
        }
        publishStatus()
        let backoff = client.config.reconnectBackoff
        let lookup = options.lookup
        let runner = Task { [weak self] in
            // Until the first `Init`, this loop owns the retries, with a backoff that grows
            // across attempts: a stale actor is tried again, anything else ends the connection.
            // After it, the reconnecting connection keeps the connection alive.
            var outcomes = outcomes.makeAsyncIterator()
            var attempt = 0
            while !Task.isCancelled {
                let failure: ActorError
                do {
                    self?.state.withLock { $0.mayOpen = true }
                    try await started.start()
                    let current = started.currentTransport.map(ObjectIdentifier.init)
                    var outcome: OpenOutcome?
                    // A close of an earlier attempt's transport is not this attempt's outcome.
                    repeat {
                        outcome = await outcomes.next()
                    } while outcome.map({ current != nil && $0.transport != current && $0.failure != nil }) ?? false
                    guard let outcome else { return }  // disposed
                    guard let closed = outcome.failure else {
                        self?.endOpening()
                        return
                    }
                    failure = closed
                    // Stops its own reconnecting: the next attempt is this loop's.
                    await started.close()
                } catch {
                    failure = Self.openError(error)
                }
                guard Self.isRetryable(failure, lookup: lookup), !Task.isCancelled else {
                    await self?.openFailed(failure, on: started)
                    return
                }
                attempt += 1
                do {
                    try await Task.sleep(for: backoff.delay(forAttempt: attempt))
                } catch {
                    return
                }
            }
        }
        state.withLock { $0.runner = runner }
    }

    /// Closes the connection with 1000 `Disposed`, rejects every waiting action with
    /// `client.disposed` and returns to ``ActorConnStatus/idle``; ``start()`` connects again.
    public func dispose() async {
        let (reconnecting, runner, waiting) = state.withLock { state in
            defer {
                state.opening?.finish()
                state.opening = nil
                state.initWatchdog?.cancel()
                state.initWatchdog = nil
                state.reconnecting = nil
                state.runner = nil
                state.waiting = [:]
                state.queue = []
                state.transport = nil
                state.status = .idle
            }
            return (state.reconnecting, state.runner, state.waiting)
        }
        let disposed = ActorError(group: "client", code: "disposed", message: "the connection was disposed")
        for (_, entry) in waiting { entry.continuation.resume(throwing: disposed) }
        await reconnecting?.close(ending: { transport in await transport.close(code: .normal, reason: "Disposed") })
        runner?.cancel()
        await runner?.value
        publishStatus()
    }

    // MARK: Actions

    /// Calls action `name` with positional JSON arguments and returns its output; queued
    /// until connected.
    ///
    /// - Throws: ``ActorError``: the action's error, the connection's when it is lost or
    ///   closed with a reason, `client.connection_lost`, or `client.disposed`.
    public func action(_ name: String, args: [JSONValue]) async throws(ActorError) -> JSONValue {
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                // The frame is written outside the lock; the send happens outside it too, once the
                // action is registered as sent (a transport lost meanwhile rejects it).
                let id = nextActionId.add(1, ordering: .relaxed).oldValue
                let frame = RivetMessageCodec.frame(ClientMessage.actionRequest(id: id, name: name, args: args))
                let transport = state.withLock { state -> (any MessageTransport)? in
                    if state.status == .connected, let transport = state.transport {
                        state.waiting[id] = Waiting(continuation: continuation, frame: frame, sent: true)
                        return transport
                    }
                    state.waiting[id] = Waiting(continuation: continuation, frame: frame, sent: false)
                    state.queue.append(id)
                    return nil
                }
                if let transport { Self.send(frame, on: transport) }
            }
        } catch let error as ActorError {
            throw error
        } catch {
            throw ActorError(group: "client", code: "internal_error", message: "\(error)")
        }
    }

    // MARK: Internals

    private static func open(client: RivetKitClient, options: ActorOptions) async throws -> any MessageTransport {
        let url = try connectURL(
            config: try await client.resolvedState().config, options: options, maxInputSize: client.config.maxInputSize)
        var subprotocols = ["rivet", "rivet_encoding.json"]
        if let params = options.params {
            subprotocols.append("rivet_conn_params." + HTTPQuery.percentEncode(params.description))
        }
        let (transport, subprotocol) = try await client.transports.openSocket(url, subprotocols)
        guard subprotocol == "rivet" else {
            await transport.close(code: .protocolError, reason: "")
            throw ActorError(group: "client", code: "connection_open_failed", message: "the server did not select rivet")
        }
        return transport
    }

    /// The WebSocket URL of `options`' actor: `/gateway/{id}[@token]/connect` for an id, the
    /// query gateway for a key.
    ///
    /// - Throws: ``ActorError`` `client.config_error` when the encoded creation input is longer
    ///   than `maxInputSize`.
    private static func connectURL(
        config: ResolvedClientConfig, options: ActorOptions, maxInputSize: Int
    ) throws(ActorError) -> String {
        let base = config.endpoint.replacingPrefix("https://", with: "wss://").replacingPrefix("http://", with: "ws://")
        var query = ["rvt-namespace=\(ActorKey.formEncode(config.namespace))"]
        switch options.lookup {
        case .id(let id):
            // The token travels in the path segment only, never in a header or the query.
            return "\(base)/gateway/\(ActorHandle.gatewaySegment(actorId: id, token: config.token))/connect"
        case .get:
            query.append("rvt-method=get")
            if let key = ActorKey.queryValue(options.key) { query.append("rvt-key=\(key)") }
            if let token = config.token { query.append("rvt-token=\(ActorKey.formEncode(token))") }
        case .getOrCreate:
            query += ["rvt-method=getOrCreate", "rvt-runner=\(ActorKey.formEncode(config.runnerName))"]
            if let key = ActorKey.queryValue(options.key) { query.append("rvt-key=\(key)") }
            query.append("rvt-crash-policy=sleep")
            if let token = config.token { query.append("rvt-token=\(ActorKey.formEncode(token))") }
            if let input = options.createWithInput {
                let encoded = Base64.encode(RivetCBOR.encode(input), urlSafe: true)
                guard encoded.utf8.count <= maxInputSize else {
                    throw ActorError(
                        group: "client", code: "config_error",
                        message:
                            "the creation input is \(encoded.utf8.count) bytes in rvt-input, "
                            + "over the limit of \(maxInputSize) (maxInputSize)")
                }
                query.append("rvt-input=\(encoded)")
            }
            if let region = options.createInRegion { query.append("rvt-region=\(ActorKey.formEncode(region))") }
        }
        return "\(base)/gateway/\(HTTPQuery.percentEncode(options.name))/connect?\(query.joined(separator: "&"))"
    }

    private func attach(_ transport: any MessageTransport) {
        transport.start { [weak self] event in
            switch event {
            case .message(let message):
                self?.receive(message, from: transport)
            case .closed(let closure):
                self?.lost(closure, transport: transport)
            }
        }
        watchForInit(on: transport)
    }

    /// Closes `transport` when the actor's `Init` has not arrived on it within
    /// ``ClientConfig/connectTimeout``: opening lasts until `Init`, so a server that accepts the
    /// socket and then says nothing fails the open (before the first `Init`) or is connected to
    /// again (after it), instead of leaving the connection in ``ActorConnStatus/connecting``.
    private func watchForInit(on transport: any MessageTransport) {
        let timeout = client.config.connectTimeout
        let watchdog = Task { [weak self] in
            do {
                try await Task.sleep(for: timeout)
            } catch {
                return  // `Init` arrived, or the connection was disposed.
            }
            guard let self, self.state.withLock({ $0.transport !== transport }) else { return }
            await transport.close(code: .policyViolation, reason: "no Init within \(timeout)")
        }
        let previous = state.withLock { state in
            defer { state.initWatchdog = watchdog }
            return state.initWatchdog
        }
        previous?.cancel()
    }

    private func receive(_ frame: TransportMessage, from transport: any MessageTransport) {
        let message: ServerMessage
        do {
            guard frame.kind == .text else { return }
            message = try RivetMessageCodec.decodeServerMessage(utf8: frame.bytes)
        } catch {
            return  // RivetKit's client drops frames it cannot read.
        }
        switch message {
        case .initialize(let actorId, let connectionId):
            let opening = state.withLock { state -> AsyncStream<OpenOutcome>.Continuation? in
                state.actorId = actorId
                state.connectionId = connectionId
                state.transport = transport
                state.status = .connected
                state.initWatchdog?.cancel()
                state.initWatchdog = nil
                for name in state.subscriptions.keys where !(state.subscriptions[name]?.isEmpty ?? true) {
                    Self.send(.subscriptionRequest(eventName: name, subscribe: true), on: transport)
                }
                for id in state.queue {
                    guard let entry = state.waiting[id] else { continue }
                    Self.send(entry.frame, on: transport)
                    state.waiting[id]?.sent = true
                }
                state.queue = []
                return state.opening
            }
            // The first `Init` after start(): the open is over, for start()'s loop.
            opening?.yield(OpenOutcome(transport: nil, failure: nil))
            publishStatus()
        case .actionResponse(let id, let output):
            state.withLock { $0.waiting.removeValue(forKey: id) }?.continuation.resume(returning: output)
        case .error(let error, let actionId?):
            state.withLock { $0.waiting.removeValue(forKey: actionId) }?.continuation.resume(throwing: error)
        case .error(let error, nil):
            rejectSent(with: error)
            report(error)
        case .event(let name, let args):
            let listeners = state.withLock { Array(($0.subscriptions[name] ?? [:]).values) }
            for listener in listeners { listener.yield(args) }
        }
    }

    private func lost(_ closure: TransportClosure, transport: any MessageTransport) {
        let (wasConnected, opening) = state.withLock { state -> (Bool, AsyncStream<OpenOutcome>.Continuation?) in
            guard state.transport.map({ $0 === transport }) ?? true else { return (false, nil) }
            let connected = state.status == .connected
            state.transport = nil
            if state.reconnecting != nil {
                state.status = connected ? .disconnected : state.status
            }
            return (connected, connected ? nil : state.opening)
        }
        if let opening {
            // Closed before the first `Init`: an open failure, for the loop of start().
            let failure =
                ActorCloseReason(parsing: closure.reason)?.error()
                ?? ActorError(
                    group: "client", code: "connection_open_failed",
                    message: "the connection closed before the actor's Init: \(closure)")
            opening.yield(OpenOutcome(transport: ObjectIdentifier(transport), failure: failure))
            return
        }
        let error =
            ActorCloseReason(parsing: closure.reason)?.error()
            ?? ActorError(group: "client", code: "connection_lost", message: "the connection was lost: \(closure)")
        rejectSent(with: error)
        if wasConnected || ActorCloseReason(parsing: closure.reason) != nil {
            report(error)
        }
        publishStatus()
    }

    /// Whether the factory may open a socket now: always after the first `Init` (reconnects);
    /// before it, once per attempt of start()'s loop, so that the reconnecting connection does
    /// not retry on its own after a close before `Init` while the loop decides what to do.
    private func takeOpenPermit() -> Bool {
        state.withLock { state in
            guard state.opening != nil else { return true }
            defer { state.mayOpen = false }
            return state.mayOpen
        }
    }

    /// The first `Init` arrived: the open is over.
    private func endOpening() {
        let opening = state.withLock { state in
            defer { state.opening = nil }
            return state.opening
        }
        opening?.finish()
    }

    /// Ends an open that failed for good: rejects the waiting actions with `error`, stops
    /// `connection`, reports the error once and goes back to ``ActorConnStatus/idle``. Does
    /// nothing when `connection` is no longer this one's (disposed or started again).
    private func openFailed(_ error: ActorError, on connection: ReconnectingConnection) async {
        let waiting = state.withLock { state -> [UInt64: Waiting]? in
            guard state.reconnecting === connection else { return nil }
            defer {
                state.opening?.finish()
                state.opening = nil
                state.waiting = [:]
                state.queue = []
                state.status = .idle
                state.reconnecting = nil
                state.runner = nil
            }
            return state.waiting
        }
        guard let waiting else { return }
        for (_, entry) in waiting { entry.continuation.resume(throwing: error) }
        await connection.close()
        report(error)
        publishStatus()
    }

    /// The structured error an open failure carries (the factory's own, under the transport's
    /// wrapping), or `client.connection_open_failed`.
    private static func openError(_ failure: any Error) -> ActorError {
        var current: (any Error)? = failure
        while let error = current {
            if let actorError = error as? ActorError { return actorError }
            current = (error as? TransportError)?.cause
        }
        return ActorError(
            group: "client", code: "connection_open_failed", message: "the connection could not be opened: \(failure)")
    }

    /// Whether an open failure is tried again: a stale actor, which may exist or be ready on
    /// the next attempt; for an id, only while it starts or stops (an id that is not found or
    /// destroyed stays so).
    private static func isRetryable(_ error: ActorError, lookup: ActorLookup) -> Bool {
        let reason = ActorCloseReason(group: error.group, code: error.code)
        guard reason.isStaleActor else { return false }
        guard lookup.isId else { return true }
        return error.code != "not_found" && !error.code.hasPrefix("destroyed_")
    }

    private func rejectSent(with error: ActorError) {
        let rejected = state.withLock { state -> [Waiting] in
            let sent = state.waiting.filter { $0.value.sent }
            for id in sent.keys { state.waiting[id] = nil }
            return Array(sent.values)
        }
        for entry in rejected { entry.continuation.resume(throwing: error) }
    }

    private func report(_ error: ActorError) {
        let listeners = state.withLock { state in
            state.lastError = error
            return Array(state.errorListeners.values)
        }
        for listener in listeners { listener.yield(error) }
    }

    private func publishStatus() {
        let (status, listeners) = state.withLock { ($0.status, Array($0.statusListeners.values)) }
        for listener in listeners { listener.yield(status) }
    }

    private static func send(_ message: ClientMessage, on transport: any MessageTransport) {
        send(RivetMessageCodec.frame(message), on: transport)
    }

    private static func send(_ frame: [UInt8], on transport: any MessageTransport) {
        do {
            try transport.enqueue(.text(utf8: frame))
        } catch {
            // The loss of the transport is reported through its closure.
        }
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}

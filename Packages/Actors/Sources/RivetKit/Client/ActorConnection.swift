import RpcTransportNIO
import Synchronization

/// A realtime connection to one actor over RivetKit's gateway WebSocket, kept alive by the
/// shared ``RpcTransport/ReconnectingConnection``.
///
/// "Connected" means the actor's `Init` arrived. Actions made before that are queued and sent
/// after it; every active event subscription is sent again after each `Init`, before the
/// queued actions. A lost connection rejects the actions in flight (with the close reason's
/// structured error when it has one), reports the error, and reconnects with the configured
/// backoff (250 ms to 30 s). An open failure before the first `Init` goes back to ``ActorConnStatus/idle``
/// with `client.connection_open_failed`.
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
        let started = state.withLock { state -> ReconnectingConnection? in
            guard state.status == .idle, state.reconnecting == nil else { return nil }
            let connection = ReconnectingConnection(
                configuration: ReconnectingConnectionConfiguration(
                    reconnect: ReconnectPolicy(maxAttempts: nil, backoff: client.config.reconnectBackoff),
                    connectTimeout: client.config.connectTimeout,
                    offlineQueueLimit: 0),
                factory: { [client, options] _ in try await Self.open(client: client, options: options) },
                handler: .transports { [weak self] transport, _ in self?.attach(transport) })
            state.reconnecting = connection
            state.status = .connecting
            return connection
        }
        guard let started else { return }
        publishStatus()
        let runner = Task { [weak self] in
            do {
                try await started.start()
            } catch {
                await self?.openFailed(error)
            }
        }
        state.withLock { $0.runner = runner }
    }

    /// Closes the connection with 1000 `Disposed`, rejects every waiting action with
    /// `client.disposed` and returns to ``ActorConnStatus/idle``; ``start()`` connects again.
    public func dispose() async {
        let (reconnecting, runner, waiting) = state.withLock { state in
            defer {
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
        let config = try await client.resolvedState().config
        var query: [String] = [
            "rvt-namespace=\(ActorKey.formEncode(config.namespace))", "rvt-method=getOrCreate",
            "rvt-runner=\(ActorKey.formEncode(config.runnerName))",
        ]
        if let key = ActorKey.queryValue(options.key) { query.append("rvt-key=\(key)") }
        query.append("rvt-crash-policy=sleep")
        if let token = config.token { query.append("rvt-token=\(ActorKey.formEncode(token))") }
        if let input = options.createWithInput {
            query.append("rvt-input=\(RivetBase64.encodeURLSafe(RivetCBOR.encode(input)))")
        }
        if let region = options.createInRegion { query.append("rvt-region=\(ActorKey.formEncode(region))") }
        let base = config.endpoint.replacingPrefix("https://", with: "wss://").replacingPrefix("http://", with: "ws://")
        let url = "\(base)/gateway/\(HTTPQuery.percentEncode(options.name))/connect?\(query.joined(separator: "&"))"
        var configuration = WebSocketClientConfiguration()
        configuration.subprotocols = ["rivet", "rivet_encoding.json"]
        if let params = options.params {
            configuration.subprotocols.append("rivet_conn_params." + HTTPQuery.percentEncode(params.description))
        }
        let transport = try await WebSocketClient.connect(to: url, configuration: configuration)
        guard transport.subprotocol == "rivet" else {
            await transport.close(code: .protocolError, reason: "")
            throw ActorError(group: "client", code: "connection_open_failed", message: "the server did not select rivet")
        }
        return transport
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
            state.withLock { state in
                state.actorId = actorId
                state.connectionId = connectionId
                state.transport = transport
                state.status = .connected
                for name in state.subscriptions.keys where !(state.subscriptions[name]?.isEmpty ?? true) {
                    Self.send(.subscriptionRequest(eventName: name, subscribe: true), on: transport)
                }
                for id in state.queue {
                    guard let entry = state.waiting[id] else { continue }
                    Self.send(entry.frame, on: transport)
                    state.waiting[id]?.sent = true
                }
                state.queue = []
            }
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
        let wasConnected = state.withLock { state -> Bool in
            guard state.transport.map({ $0 === transport }) ?? true else { return false }
            let connected = state.status == .connected
            state.transport = nil
            if state.reconnecting != nil {
                state.status = connected ? .disconnected : state.status
            }
            return connected
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

    private func openFailed(_ failure: any Error) async {
        let error =
            (failure as? ActorError)
            ?? ActorError(group: "client", code: "connection_open_failed", message: "the connection could not be opened: \(failure)")
        let (waiting, reconnecting) = state.withLock { state in
            defer {
                state.waiting = [:]
                state.queue = []
                state.status = .idle
                state.reconnecting = nil
            }
            return (state.waiting, state.reconnecting)
        }
        for (_, entry) in waiting { entry.continuation.resume(throwing: error) }
        await reconnecting?.close()
        report(error)
        publishStatus()
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

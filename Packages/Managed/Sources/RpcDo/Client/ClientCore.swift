internal import CapnWeb
import Logging
import RpcTransport
import Synchronization

/// What runs the calls of one client: where the root object comes from, and the timeout,
/// retry and interceptor rules around each call (the managed layer's one call path,
/// ``ManagedChannel``). Shared by every ``RpcRef`` of the client.
final class ClientCore: Sendable {
    /// Where the root object comes from.
    enum Source: Sendable {
        /// The current session of a supervised connection, through its managed channel.
        case managed(ManagedChannel<RpcError>)
        /// One fixed object (an HTTP batch).
        case fixed(Ref<Any>)
    }

    private struct Current {
        var generation: UInt64 = 0
        var session: RpcSession<Any>?
    }

    /// The call timeout given to Cap'n Web sessions: the client enforces its own (per call)
    /// timeouts, so the session's only has to outlast the longest of them.
    static let sessionTimeout: Duration = .seconds(7 * 24 * 3600)

    /// The rules around each call.
    let settings: ManagedChannel<RpcError>.Settings
    private let logger: Logger
    private let source = Mutex<Source?>(nil)
    private let current = Mutex(Current())
    private let callIDs = Atomic<UInt64>(0)
    /// Answers still awaited after their caller stopped waiting.
    let tasks = OwnedTasks<Never>()
    /// Holds new calls back while a header change reconnects.
    let gate = CallGate()

    /// What the calls record; `nil` when nothing is.
    private let observation: ClientObservation?

    init(
        settings: ManagedChannel<RpcError>.Settings,
        logger: Logger,
        observability: RpcObservability = RpcObservability(),
        source: Source? = nil
    ) {
        self.settings = settings
        self.logger = logger
        self.observation = ClientObservation.make(observability)
        self.source.withLock { $0 = source }
    }

    /// Runs the calls through `channel`, on its connection's sessions.
    func bind(_ channel: ManagedChannel<RpcError>) {
        source.withLock { $0 = .managed(channel) }
    }

    /// Runs the calls on one fixed object (an HTTP batch).
    func bind(fixed root: Ref<Any>) {
        source.withLock { $0 = .fixed(root) }
    }

    var connection: ReconnectingConnection? {
        if case .managed(let channel)? = source.withLock({ $0 }) { return channel.connection }
        return nil
    }

    /// Starts a Cap'n Web session on a new transport of the managed connection.
    func attach(_ transport: any MessageTransport, generation: UInt64) {
        var configuration = Configuration()
        configuration.timeout = Self.sessionTimeout
        let session = RpcSession<Any>.start(transport: transport, configuration: configuration)
        current.withLock { $0 = Current(generation: generation, session: session) }
    }

    /// Ends the current session (after the connection closed).
    func detachAll() async {
        let session = current.withLock { current -> RpcSession<Any>? in
            defer { current.session = nil }
            return current.session
        }
        await session?.close()
        await tasks.drain()
    }

    /// Awaits `ref`'s outcome in a task the client owns, so that a caller who stops waiting
    /// (a timeout, a cancellation) is released at once, whatever the session does.
    private func settle(_ ref: Ref<Any>) async -> RpcOutcome {
        if case .fixed? = source.withLock({ $0 }) {
            // A batch: pull in this task, right after the pushes, so that both leave in the
            // same request; the batch's end settles every wait.
            return await ref.settle()
        }
        let waiter = OutcomeWaiter()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.install(continuation)
                tasks.spawn { waiter.resume(await ref.settle()) }
            }
        } onCancel: {
            waiter.resume(.failed(.cancelled))
        }
    }

    /// The root object of the session on `link`.
    private func root(on link: ReconnectingConnection.Link) throws(RpcError) -> Ref<Any> {
        let session = current.withLock { $0.generation == link.generation ? $0.session : nil }
        guard let session else { throw .connectionLost("the session for the new connection is not ready") }
        return session.api
    }

    /// Reconnects so that the current headers apply, without cutting calls: new calls wait,
    /// calls already sent finish (each within its timeout), then the connection is opened anew
    /// and the waiting calls go out on it. Streams being read end, as on any reconnect.
    func reconnectForHeaders() async {
        guard let connection, connection.isRunning else { return }
        await gate.pause()
        try? await connection.reconnect(keepTryingOnFailure: true)
        gate.resume()
    }

    private func newCall(_ method: String, options: RefOptions) -> ClientCall {
        ClientCall(
            method: method,
            id: callIDs.wrappingAdd(1, ordering: .relaxed).newValue,
            timeout: options.timeout ?? settings.requestTimeout,
            isIdempotent: options.isIdempotent,
            metadata: options.metadata)
    }

    // MARK: Calls

    /// Runs `expression` through the interceptors, with the timeout and retry rules, and
    /// returns its value.
    func execute(_ expression: RefExpression, options: RefOptions) async throws(RpcError) -> RpcPayload {
        if let failure = expression.failure { throw failure }
        let call = newCall(expression.text(), options: options)
        guard let observation else { return try await run(expression, call) }
        return try await observation.observe(expression.methodName, call: call) { call async throws(RpcError) -> RpcPayload in
            try await self.run(expression, call)
        }
    }

    /// Runs `call`, the call of `expression`, on the current source.
    private func run(_ expression: RefExpression, _ call: ClientCall) async throws(RpcError) -> RpcPayload {
        switch source.withLock({ $0 }) {
        case nil:
            throw .connectionLost("the client is not connected")
        case .managed(let channel)?:
            let prepared = try await expression.prepared()
            if let failure = prepared.failure { throw failure }
            let singleCall = prepared.callCount <= 1
            let logger = self.logger
            return try await channel.perform(
                call,
                isSafeToRetry: { error, sent, call in
                    let offlineFailure = !sent && channel.settings.failsOffline
                    let safe =
                        channel.connection.isRunning && !offlineFailure
                        && Self.isSafeToRepeat(error, sent: sent, idempotent: call.isIdempotent, singleCall: singleCall)
                    if safe {
                        logger.debug("retrying a call", metadata: ["call": "\(call.method)", "error": "\(error)"])
                    }
                    return safe
                }
            ) { (link, sent) async throws(RpcError) -> RpcPayload in
                // A call that waited for a header change's reconnect goes out on the new link.
                var link = link
                while !self.gate.tryEnter() {
                    await self.gate.waitUntilOpen()
                    if Task.isCancelled { throw .cancelled }
                    do throws(TransportError) {
                        link = try await channel.connection.link()
                    } catch {
                        throw ErrorMapping.map(ManagedConnectionError(transport: error))
                    }
                }
                defer { self.gate.leave() }
                let root = try self.root(on: link)
                sent.set()
                return try await self.settled(prepared.materialize(root: root))
            }
        case .fixed(let root)?:
            // A batch: one attempt, no connection to wait for or retry on.
            let prepared = try await expression.prepared()
            if let failure = prepared.failure { throw failure }
            do {
                return try await settings.interceptors.run(call) { call in
                    try await RpcError.within(call.timeout) { () async throws(RpcError) -> RpcPayload in
                        try await self.settled(prepared.materialize(root: root))
                    }
                }
            } catch {
                throw ErrorMapping.map(any: error)
            }
        }
    }

    /// The value `ref` settles to, or its failure as an ``RpcError``.
    private func settled(_ ref: Ref<Any>) async throws(RpcError) -> RpcPayload {
        switch await settle(ref) {
        case .resolved(let value): return value
        case .rejected(let value): throw ErrorMapping.map(value)
        case .failed(let error): throw ErrorMapping.map(error)
        }
    }

    /// Runs `expression`, which must produce a readable stream, and decodes its elements.
    func stream<Element: Decodable & Sendable>(
        _ expression: RefExpression,
        options: RefOptions,
        as type: Element.Type
    ) async throws(RpcError) -> AsyncThrowingStream<Element, any Error> {
        let payload = try await execute(expression, options: options)
        guard case .readable(let stream) = payload else {
            throw .invalidResponse("the call did not return a stream")
        }
        return stream.decoded(as: Element.self)
    }

    /// The retry rule: transient errors only, and only for calls that are safe to repeat.
    static func isSafeToRepeat(_ error: RpcError, sent: Bool, idempotent: Bool, singleCall: Bool) -> Bool {
        guard error.isTransient else { return false }
        if !sent || idempotent { return true }
        if case .rateLimitExceeded = error { return singleCall }
        return false
    }

    /// The retry loop the calls run in (the managed channel's, with these settings).
    private var retries: RetryLoop {
        RetryLoop(maxRetries: settings.maxRetries, backoff: settings.backoff, maxRetryDelay: settings.maxRetryDelay)
    }

    /// The wait before retry number `attempt` (from 1) after `error`: what a rate limit asked
    /// for, capped at the configured maximum, or the backoff's delay.
    func retryDelay(after error: RpcError, attempt: Int) -> Duration {
        retries.delay(retry: attempt, hint: Self.retryAfter(error))
    }

    /// The wait a rate-limited call's error asks for; `nil` unless it is a finite, non-negative
    /// number of seconds. A huge one is clamped (the retry loop caps it at `maxRetryDelay`).
    static func retryAfter(_ error: RpcError) -> Duration? {
        if case .rateLimitExceeded(let retryAfter?) = error {
            return ClampedSeconds.duration(retryAfter)
        }
        return nil
    }

    // MARK: Calls by name

    /// `users.get` with `params` as a chain: member reads for every dot, then the call.
    func call(_ method: String, params: [RpcValue]) async throws(RpcError) -> RpcValue {
        let parts = method.split(separator: ".", omittingEmptySubsequences: false)
        guard !method.isEmpty, !parts.contains(where: \.isEmpty) else {
            throw .invalidArgument("'\(method)' is not a method name")
        }
        var expression = RefExpression.root
        for part in parts {
            expression = .member(expression, String(part), subscripted: false)
        }
        expression = .call(expression, params.map { RefArgument(label: "", value: $0) })
        let payload = try await execute(expression, options: RefOptions())
        return try ErrorMapping.decode(payload, as: RpcValue.self)
    }
}

internal import CapnWeb
import Logging
import RpcTransport
import Synchronization

/// What runs the calls of one client: where the root object comes from, and the timeout,
/// retry and interceptor rules around each call. Shared by every ``RpcRef`` of the client.
final class ClientCore: Sendable {
    /// Where the root object comes from.
    enum Source: Sendable {
        /// The current session of a managed connection.
        case managed(ManagedConnection)
        /// One fixed object (an HTTP batch).
        case fixed(Ref<Any>)
    }

    struct Settings: Sendable {
        var timeout: Duration
        var maxRetries: Int
        var backoff: Backoff
        var maxRetryDelay: Duration
        var interceptors: [any ClientInterceptor]
        var logger: Logger
    }

    private struct Current {
        var generation: UInt64 = 0
        var session: RpcSession<Any>?
    }

    /// The call timeout given to Cap'n Web sessions: the client enforces its own (per call)
    /// timeouts, so the session's only has to outlast the longest of them.
    static let sessionTimeout: Duration = .seconds(7 * 24 * 3600)

    let settings: Settings
    private let source = Mutex<Source?>(nil)
    private let current = Mutex(Current())
    private let callIDs = Atomic<UInt64>(0)
    /// Answers still awaited after their caller stopped waiting.
    let tasks = OwnedTasks<Never>()
    /// Holds new calls back while a header change reconnects.
    let gate = CallGate()

    init(settings: Settings, source: Source? = nil) {
        self.settings = settings
        self.source.withLock { $0 = source }
    }

    func bind(_ source: Source) {
        self.source.withLock { $0 = source }
    }

    var connection: ManagedConnection? {
        if case .managed(let connection)? = source.withLock({ $0 }) { return connection }
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

    /// The root object to build a call on, waiting for the connection per the offline policy.
    private func root() async throws(RpcError) -> Ref<Any> {
        switch source.withLock({ $0 }) {
        case nil:
            throw .connectionLost("the client is not connected")
        case .fixed(let root)?:
            return root
        case .managed(let connection)?:
            let link: ManagedConnection.Link
            do {
                link = try await connection.link()
            } catch {
                throw ErrorMapping.map(error)
            }
            let session = current.withLock { $0.generation == link.generation ? $0.session : nil }
            guard let session else { throw .connectionLost("the session for the new connection is not ready") }
            return session.api
        }
    }

    /// The root object to build a call on, once the gate admits the call: a call that had to
    /// wait for a reconnect asks for the root again, so it goes out on the new connection.
    private func admittedRoot() async throws(RpcError) -> Ref<Any> {
        while true {
            let root = try await root()
            if gate.tryEnter() { return root }
            await gate.waitUntilOpen()
            if Task.isCancelled { throw .cancelled }
        }
    }

    /// Reconnects so that the current headers apply, without cutting calls: new calls wait,
    /// calls already sent finish (each within its timeout), then the connection is opened anew
    /// and the waiting calls go out on it. Streams being read end, as on any reconnect.
    func reconnectForHeaders() async {
        guard let connection, connection.isRunning else { return }
        await gate.pause()
        await connection.reconnect()
        gate.resume()
    }

    private func newCall(_ method: String, options: RefOptions) -> ClientCall {
        ClientCall(
            method: method,
            id: callIDs.wrappingAdd(1, ordering: .relaxed).newValue,
            timeout: options.timeout ?? settings.timeout,
            isIdempotent: options.isIdempotent,
            metadata: options.metadata)
    }

    // MARK: Calls

    /// Runs `expression` through the interceptors, with the timeout and retry rules, and
    /// returns its value.
    func execute(_ expression: RefExpression, options: RefOptions) async throws(RpcError) -> RpcPayload {
        if let failure = expression.failure { throw failure }
        let call = newCall(expression.text(), options: options)
        do {
            return try await settings.interceptors.run(call) { call in
                try await self.attempts(expression, call: call)
            }
        } catch {
            throw ErrorMapping.map(any: error)
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

    private func attempts(_ expression: RefExpression, call: ClientCall) async throws(RpcError) -> RpcPayload {
        let prepared = try await expression.prepared()
        if let failure = prepared.failure { throw failure }
        let singleCall = prepared.callCount <= 1
        return try await retries.run(
            isSafeToRetry: { error, sent in
                // With the fail policy, a call made while offline fails at once.
                let offlineFailure = !sent && connection?.configuration.offlinePolicy == .fail
                return connection?.isRunning ?? true && !offlineFailure
                    && Self.isSafeToRepeat(error, sent: sent, idempotent: call.isIdempotent, singleCall: singleCall)
            },
            retryAfter: Self.retryAfter,
            cancelled: { .cancelled },
            onRetry: { error, retry in
                settings.logger.debug(
                    "retrying a call",
                    metadata: ["call": "\(call.method)", "error": "\(error)", "attempt": "\(retry)"])
            }
        ) { (sent: SentFlag) async throws(RpcError) -> RpcPayload in
            try await Self.withTimeout(call.timeout) { () async throws(RpcError) -> RpcPayload in
                let root = try await self.admittedRoot()
                defer { self.gate.leave() }
                sent.set()
                switch await self.settle(prepared.materialize(root: root)) {
                case .resolved(let value): return value
                case .rejected(let value): throw ErrorMapping.map(value)
                case .failed(let error): throw ErrorMapping.map(error)
                }
            }
        }
    }

    /// The retry rule: transient errors only, and only for calls that are safe to repeat.
    static func isSafeToRepeat(_ error: RpcError, sent: Bool, idempotent: Bool, singleCall: Bool) -> Bool {
        guard error.isTransient else { return false }
        if !sent || idempotent { return true }
        if case .rateLimitExceeded = error { return singleCall }
        return false
    }

    /// The one retry loop every call of this client runs in.
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

    /// Runs `operation`, failing with ``RpcError/timeout`` when `duration` passes first.
    static func withTimeout<R: Sendable>(
        _ duration: Duration,
        _ operation: @escaping @Sendable () async throws(RpcError) -> R
    ) async throws(RpcError) -> R {
        do {
            guard let value = try await Deadline.race(duration, operation) else {
                throw RpcError.timeout
            }
            return value
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw ErrorMapping.map(any: error)
        }
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

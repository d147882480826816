public import RpcTransport
import Synchronization

/// The managed layer's one call path, protocol-neutral: every call runs through the
/// interceptors, then the retry loop (``RetryLoop``: a per-call rule of what is safe to send
/// again, the peer's `retryAfter`), each attempt within the call's deadline (kept by one timer
/// per channel, ``AttemptDeadline``), on
/// the ready link of one supervised connection (``ReconnectingConnection``), which
/// holds calls made offline per the offline policy. Requests answered by id are matched here
/// too.
///
/// RpcDo's Cap'n Web client runs its calls with ``perform(_:isSafeToRetry:_:)``; the RivetKit
/// and Tinyvex clients send their actions and requests with ``request(_:encode:)`` and give
/// each answer back with ``answer(_:with:)``, so interceptors, deadlines and retries are the
/// same for all of them.
///
/// ```swift
/// let channel = ManagedChannel<ManagedConnectionError>(connection: connection, settings: .init(configuration))
/// let value = try await channel.request(channel.call("add")) { id in encodeAdd(id: id) }
/// // …and where the protocol reads an answer:
/// channel.answer(id, with: .success(result))
/// ```
public final class ManagedChannel<Failure: ManagedFailure>: Sendable {
    /// A ready link of the connection.
    public typealias Link = ReconnectingConnection.Link

    /// The rules around each call.
    public struct Settings: Sendable {
        /// How long one attempt may take (waiting for the link included) when the call says
        /// nothing else.
        public var requestTimeout: Duration
        /// How many attempts may follow the first.
        public var maxRetries: Int
        /// The wait before each retry without a hint.
        public var backoff: Backoff
        /// The longest wait a `retryAfter` hint may ask for.
        public var maxRetryDelay: Duration
        /// Run in order around every call.
        public var interceptors: [any ClientInterceptor]
        /// Whether a call made while offline fails at once (no retry) rather than waiting.
        public var failsOffline: Bool

        /// Creates settings.
        public init(
            requestTimeout: Duration, maxRetries: Int, backoff: Backoff, maxRetryDelay: Duration,
            interceptors: [any ClientInterceptor] = [], failsOffline: Bool = false
        ) {
            self.requestTimeout = requestTimeout
            self.maxRetries = maxRetries
            self.backoff = backoff
            self.maxRetryDelay = maxRetryDelay
            self.interceptors = interceptors
            self.failsOffline = failsOffline
        }

        /// The rules of a managed connection's configuration: its request timeout, retries,
        /// reconnect backoff, interceptors and offline policy.
        public init(_ configuration: ManagedConnectionConfiguration) {
            self.init(
                requestTimeout: configuration.requestTimeout, maxRetries: configuration.maxRequestRetries,
                backoff: configuration.reconnect.backoff, maxRetryDelay: configuration.reconnect.backoff.maxDelay,
                interceptors: configuration.interceptors, failsOffline: configuration.offlinePolicy == .fail)
        }
    }

    private struct Pending {
        var continuation: CheckedContinuation<JSONValue, any Error>
        var generation: UInt64
        /// The time its attempt allows, for the failure when it passes.
        var timeout: Duration
    }

    /// The requests waiting for their answer, by id; also what the deadlines of their attempts
    /// are armed with (tagged with the request's id), so that no object is made per request.
    private final class PendingRequests: TaggedExpiringWait {
        private let table = Mutex<[UInt64: Pending]>([:])

        func withLock<Result>(_ body: (inout [UInt64: Pending]) -> Result) -> Result {
            table.withLock { body(&$0) }
        }

        func expire(tag: UInt64) {
            guard let request = withLock({ $0.removeValue(forKey: tag) }) else { return }
            request.continuation.resume(throwing: AttemptDeadline<Failure>.failure(after: request.timeout))
        }
    }

    /// The supervised connection the calls travel on.
    public let connection: ReconnectingConnection
    /// The rules around each call.
    public let settings: Settings
    private let pending = PendingRequests()
    private let ids = Atomic<UInt64>(0)
    private let deadlines = DeadlineTimer()

    /// Creates a channel on `connection` (which it does not start): requests in flight on a
    /// link that is lost fail with `connectionLost` (and are retried per the rule).
    public init(connection: ReconnectingConnection, settings: Settings) {
        self.connection = connection
        self.settings = settings
        connection.onLoss { [weak self] generation in self?.lost(generation) }
    }

    /// A new id, unique among this channel's calls and requests, from 1.
    public func nextID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// A call description with a new id and the default timeout.
    public func call(_ method: String, timeout: Duration? = nil, isIdempotent: Bool = false, metadata: [String: String] = [:]) -> ClientCall {
        ClientCall(method: method, id: nextID(), timeout: timeout ?? settings.requestTimeout, isIdempotent: isIdempotent, metadata: metadata)
    }

    /// How many requests wait for their answer.
    public var pendingCount: Int { pending.withLock { $0.count } }

    /// How many attempts have a deadline armed on the channel's timer.
    public var armedDeadlineCount: Int { deadlines.armedCount }

    // MARK: Calls

    /// Runs one call: the interceptors, then attempts until one succeeds or the rule says
    /// stop, each within the call's timeout, each given the ready link (waited for per the
    /// offline policy). The attempt marks its ``SentFlag`` once it handed its request to the
    /// transport.
    ///
    /// The attempt runs in a timeout race. An attempt that waits for something it can end
    /// from outside (an answer matched by id) should use
    /// ``perform(_:isSafeToRetry:expiring:)``, which needs no task per attempt.
    ///
    /// - Parameters:
    ///   - call: The call, before the interceptors.
    ///   - isSafeToRetry: Whether a failed attempt may be made again, given its error,
    ///     whether it reached the transport and the call as the interceptors passed it on; `nil`
    ///     for the default: a transient failure, of an attempt that did not reach the transport
    ///     or of an idempotent call, while the connection still tries.
    ///   - attempt: Makes one attempt on the ready link, marking the flag once its request
    ///     reached the transport.
    public func perform<T: Sendable>(
        _ call: ClientCall,
        isSafeToRetry: (@Sendable (Failure, _ sent: Bool, _ call: ClientCall) -> Bool)? = nil,
        _ attempt: @escaping @Sendable (Link, SentFlag) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        try await perform(call, isSafeToRetry: isSafeToRetry) { (link, sent, deadline) async throws(Failure) -> T in
            try await self.within(deadline) { () async throws(Failure) -> T in try await attempt(link, sent) }
        }
    }

    /// Runs one call as ``perform(_:isSafeToRetry:_:)`` does, but the attempt keeps its own
    /// deadline: it arms the ``AttemptDeadline`` it is given once it waits, with what ends
    /// that wait (the channel's one timer runs it when the time is up), and ends at once when
    /// its task is cancelled.
    nonisolated(nonsending) public func perform<T: Sendable>(
        _ call: ClientCall,
        isSafeToRetry: (@Sendable (Failure, _ sent: Bool, _ call: ClientCall) -> Bool)? = nil,
        expiring attempt: nonisolated(nonsending) @escaping @Sendable (Link, SentFlag, AttemptDeadline<Failure>) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        // Without interceptors, straight to the attempts (no untyped rethrow to map back).
        if settings.interceptors.isEmpty {
            return try await attempts(call, isSafeToRetry: isSafeToRetry, attempt)
        }
        do {
            return try await settings.interceptors.run(call) { call in
                try await self.attempts(call, isSafeToRetry: isSafeToRetry, attempt)
            }
        } catch let error as Failure {
            throw error
        } catch is CancellationError {
            throw Failure.channel(ManagedConnectionError(.cancelled, "cancelled"))
        } catch {
            throw Failure.local(error)
        }
    }

    /// Sends a request answered by id: `encode` writes it with the id of each attempt, and the
    /// call returns what ``answer(_:with:)`` gives for that id.
    public func request(
        _ call: ClientCall,
        encode: @escaping @Sendable (UInt64) throws(Failure) -> TransportMessage
    ) async throws(Failure) -> JSONValue {
        try await perform(call) { (link, sent, deadline) async throws(Failure) -> JSONValue in
            let id = self.nextID()
            let message = try encode(id)
            return try await self.exchange(id: id, message: message, on: link, sent: sent, deadline: deadline)
        }
    }

    /// Sends a request answered by id on `link` now, without the interceptors, retries or the
    /// wait for a ready link: for a protocol's ready handshake, which runs before the link is
    /// ready. Fails with `timeout` after `timeout`.
    public func request(
        on link: Link, timeout: Duration,
        encode: @escaping @Sendable (UInt64) throws(Failure) -> TransportMessage
    ) async throws(Failure) -> JSONValue {
        let id = nextID()
        let message = try encode(id)
        let deadline = AttemptDeadline<Failure>(timeout: timeout, timer: deadlines)
        return try await exchange(id: id, message: message, on: link, sent: SentFlag(), deadline: deadline)
    }

    /// Gives the answer of request `id` to its caller; an answer nobody waits for (late, or
    /// unknown) is dropped.
    public func answer(_ id: UInt64, with result: Result<JSONValue, Failure>) {
        guard let waiting = pending.withLock({ $0.removeValue(forKey: id) }) else { return }
        waiting.continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// Fails every request waiting for its answer on the link of `generation` (every one when
    /// `nil`): for a protocol error that names no request.
    public func failPending(generation: UInt64? = nil, with error: Failure) {
        let failed = pending.withLock { pending -> [Pending] in
            let ids = pending.filter { generation == nil || $0.value.generation == generation }.map(\.key)
            return ids.compactMap { pending.removeValue(forKey: $0) }
        }
        for request in failed { request.continuation.resume(throwing: error) }
    }

    // MARK: Internals

    private nonisolated(nonsending) func attempts<T: Sendable>(
        _ call: ClientCall,
        isSafeToRetry: (@Sendable (Failure, Bool, ClientCall) -> Bool)?,
        _ attempt: nonisolated(nonsending) @escaping @Sendable (Link, SentFlag, AttemptDeadline<Failure>) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let retries = RetryLoop(maxRetries: settings.maxRetries, backoff: settings.backoff, maxRetryDelay: settings.maxRetryDelay)
        let connection = self.connection
        let failsOffline = settings.failsOffline
        return try await retries.run(
            isSafeToRetry: { error, sent in
                if let isSafeToRetry { return isSafeToRetry(error, sent, call) }
                // With the fail policy, a call made while offline fails at once.
                let offlineFailure = !sent && failsOffline
                return error.isTransient && (call.isIdempotent || !sent) && !offlineFailure && connection.isRunning
            },
            retryAfter: { $0.retryAfter },
            cancelled: { Failure.channel(ManagedConnectionError(.cancelled, "cancelled")) }
        ) { (sent: SentFlag) async throws(Failure) -> T in
            let deadline = AttemptDeadline<Failure>(timeout: call.timeout, timer: self.deadlines)
            // The common case, without a race: the link is ready.
            if let link = connection.readyLink { return try await attempt(link, sent, deadline) }
            let link = try await self.within(deadline) { () async throws(Failure) -> Link in
                do throws(TransportError) {
                    return try await connection.link()
                } catch {
                    throw Failure.channel(ManagedConnectionError(transport: error))
                }
            }
            return try await attempt(link, sent, deadline)
        }
    }

    /// Runs `operation` until `deadline`, in the timeout race.
    private func within<T: Sendable>(
        _ deadline: AttemptDeadline<Failure>, _ operation: @escaping @Sendable () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        try await Failure.within(deadline.timeout, until: deadline.instant, operation)
    }

    /// Writes `message` on `link` and waits for the answer to `id` until `deadline`.
    private func exchange(
        id: UInt64, message: TransportMessage, on link: Link, sent: SentFlag, deadline: AttemptDeadline<Failure>
    ) async throws(Failure) -> JSONValue {
        var armed: AttemptDeadline<Failure>.Armed?
        defer { armed?.disarm() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                    pending.withLock {
                        $0[id] = Pending(continuation: continuation, generation: link.generation, timeout: deadline.timeout)
                    }
                    if Task.isCancelled {
                        take(id)?.continuation.resume(throwing: CancellationError())
                        return
                    }
                    do {
                        try link.transport.enqueue(message)
                        sent.set()
                    } catch {
                        take(id)?.continuation.resume(
                            throwing: Failure.channel(ManagedConnectionError(.notConnected, "the request could not be sent: \(error)")))
                        return
                    }
                    armed = deadline.arm(pending, tag: id)
                }
            } onCancel: {
                self.take(id)?.continuation.resume(throwing: CancellationError())
            }
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure.channel(ManagedConnectionError(.cancelled, "cancelled"))
        }
    }

    private func take(_ id: UInt64) -> Pending? {
        pending.withLock { $0.removeValue(forKey: id) }
    }

    private func lost(_ generation: UInt64) {
        failPending(generation: generation, with: Failure.channel(ManagedConnectionError(.connectionLost, "the connection was lost")))
    }
}

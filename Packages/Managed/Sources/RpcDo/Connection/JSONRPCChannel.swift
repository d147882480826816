import Logging
import RpcTransport
public import RpcWire
import Synchronization

/// JSON-RPC 2.0 requests over a ``ManagedConnection``: each request gets an id, its answer is
/// matched by that id, and every request has a timeout. Interceptors run in order around each
/// request.
///
/// ```swift
/// try await JSONRPCChannel.withChannel(configuration: config, factory: openTransport) { channel in
///     let sum = try await channel.request("add", params: .positional([1, 2]))
/// }
/// ```
///
/// When the connection drops, requests in flight on it fail with
/// ``ManagedConnectionError/Code/connectionLost`` unless they were marked idempotent, in which
/// case they are sent again on the next connection (up to
/// ``ManagedConnectionConfiguration/maxRequestRetries`` times, after the reconnect backoff);
/// requests that never reached the transport are retried the same way, idempotent or not.
/// Requests made while offline wait for the connection per the ``OfflinePolicy``, within
/// their timeout.
public final class JSONRPCChannel: Sendable {
    private struct Pending {
        let continuation: CheckedContinuation<JSONValue, any Error>
        let generation: UInt64
    }

    private final class Correlator: Sendable {
        let pending = Mutex<[Int64: Pending]>([:])
        let onNotification: (@Sendable (String, JSONRPCParams?) -> Void)?
        let logger: Logger
        let codec = JSONRPCCodec()
        let ids = Atomic<Int64>(0)

        func nextID() -> Int64 {
            ids.wrappingAdd(1, ordering: .relaxed).newValue
        }

        /// Sends `method` on `transport` and returns when any answer arrives: an error answer
        /// (an unknown method, say) still proves the peer is alive.
        func ping(_ method: String, on transport: any MessageTransport) async throws {
            let id = nextID()
            let bytes = try codec.encode(.request(id: .number(id), method: method, params: nil))
            do {
                _ = try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                        pending.withLock { $0[id] = Pending(continuation: continuation, generation: .max) }
                        if Task.isCancelled {
                            take(id)?.continuation.resume(throwing: CancellationError())
                            return
                        }
                        do {
                            try transport.enqueue(.text(utf8: bytes))
                        } catch {
                            take(id)?.continuation.resume(throwing: error)
                        }
                    }
                } onCancel: {
                    self.take(id)?.continuation.resume(throwing: CancellationError())
                }
            } catch let error as ManagedConnectionError where error.code == .remote {
                return
            }
        }

        init(onNotification: (@Sendable (String, JSONRPCParams?) -> Void)?, logger: Logger) {
            self.onNotification = onNotification
            self.logger = logger
        }

        func receive(_ message: TransportMessage) {
            let packet: JSONRPCPacket
            do {
                packet = try codec.decode(message.bytes)
            } catch {
                logger.warning("an inbound message is not JSON-RPC", metadata: ["error": "\(error)"])
                return
            }
            for message in packet.messages {
                switch message {
                case .success(.number(let id), let result):
                    take(id)?.continuation.resume(returning: result)
                case .failure(.number(let id), let error):
                    take(id)?.continuation.resume(throwing: ManagedConnectionError(.remote, error.message, remote: error))
                case .notification(let method, let params):
                    onNotification?(method, params)
                case .request(_, let method, _):
                    logger.debug("ignoring a request from the peer", metadata: ["method": "\(method)"])
                case .success, .failure:
                    logger.debug("ignoring an answer with an unknown id")
                }
            }
        }

        func take(_ id: Int64) -> Pending? {
            pending.withLock { $0.removeValue(forKey: id) }
        }

        func lost(_ generation: UInt64) {
            let lost = pending.withLock { pending -> [Pending] in
                let ids = pending.filter { $0.value.generation == generation }.map(\.key)
                return ids.compactMap { pending.removeValue(forKey: $0) }
            }
            for request in lost {
                request.continuation.resume(throwing: ManagedConnectionError(.connectionLost, "the connection was lost"))
            }
        }
    }

    /// The connection the requests travel on (its states, headers and lifecycle).
    public let connection: ManagedConnection
    private let correlator: Correlator

    /// Creates a channel; call `connection.start()` (or use ``withChannel(configuration:factory:pingMethod:onNotification:isolation:_:)``).
    ///
    /// - Parameters:
    ///   - configuration: The connection's settings.
    ///   - factory: Opens a transport with the current headers.
    ///   - pingMethod: With a ``ManagedConnectionConfiguration/heartbeat``, the heartbeat's
    ///     probe becomes a request for this method; any answer, even an error, counts as alive.
    ///   - onNotification: Receives the peer's notifications (method and parameters).
    public init(
        configuration: ManagedConnectionConfiguration = ManagedConnectionConfiguration(),
        factory: @escaping ManagedConnection.TransportFactory,
        pingMethod: String? = nil,
        onNotification: (@Sendable (String, JSONRPCParams?) -> Void)? = nil
    ) {
        let correlator = Correlator(onNotification: onNotification, logger: configuration.logger)
        var configuration = configuration
        if let pingMethod, var heartbeat = configuration.heartbeat {
            heartbeat.probe = { transport in try await correlator.ping(pingMethod, on: transport) }
            configuration.heartbeat = heartbeat
        }
        self.correlator = correlator
        self.connection = ManagedConnection(configuration: configuration, factory: factory, handler: .messages { message in
            correlator.receive(message)
        })
        connection.onLoss { generation in correlator.lost(generation) }
    }

    /// Starts a channel, runs `body` with it, and closes it when `body` returns or throws
    /// (parameters as ``init(configuration:factory:pingMethod:onNotification:)``).
    public static func withChannel<T>(
        configuration: ManagedConnectionConfiguration = ManagedConnectionConfiguration(),
        factory: @escaping ManagedConnection.TransportFactory,
        pingMethod: String? = nil,
        onNotification: (@Sendable (String, JSONRPCParams?) -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (JSONRPCChannel) async throws -> T
    ) async throws -> T {
        let channel = JSONRPCChannel(configuration: configuration, factory: factory, pingMethod: pingMethod, onNotification: onNotification)
        try await channel.connection.start()
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(channel))
        } catch {
            outcome = .failure(error)
        }
        await channel.connection.close()
        return try outcome.get()
    }

    /// Sends a request and returns its result.
    ///
    /// - Parameters:
    ///   - method: The method name.
    ///   - params: The parameters, if any.
    ///   - timeout: How long to wait for the answer (including waiting for the connection);
    ///     `nil` uses ``ManagedConnectionConfiguration/requestTimeout``.
    ///   - idempotent: Whether the request may be sent again after its connection was lost.
    /// - Throws: ``ManagedConnectionError``: `remote` (with the peer's error object) when the
    ///   peer answers with an error, `timeout`, `connectionLost`, `notConnected`,
    ///   `offlineQueueFull`, `cancelled`.
    public func request(
        _ method: String,
        params: JSONRPCParams? = nil,
        timeout: Duration? = nil,
        idempotent: Bool = false
    ) async throws(ManagedConnectionError) -> JSONValue {
        let configuration = connection.configuration
        let call = ClientCall(
            method: method,
            id: UInt64(truncatingIfNeeded: correlator.nextID()),
            timeout: timeout ?? configuration.requestTimeout,
            isIdempotent: idempotent)
        do {
            return try await configuration.interceptors.run(call) { call in
                try await self.attempts(call, params: params)
            }
        } catch let error as ManagedConnectionError {
            throw error
        } catch is CancellationError {
            throw ManagedConnectionError(.cancelled, "cancelled")
        } catch {
            throw ManagedConnectionError(.invalidRequest, "\(error)")
        }
    }

    /// Sends a notification (no answer), holding it while offline per the ``OfflinePolicy``.
    public func notify(_ method: String, params: JSONRPCParams? = nil) async throws(ManagedConnectionError) {
        try await connection.send(try encode(.notification(method: method, params: params)))
    }

    private func encode(_ message: JSONRPCMessage) throws(ManagedConnectionError) -> TransportMessage {
        do {
            return .text(utf8: try correlator.codec.encode(message))
        } catch {
            throw ManagedConnectionError(.invalidRequest, "\(error)")
        }
    }

    private func attempts(_ call: ClientCall, params: JSONRPCParams?) async throws(ManagedConnectionError) -> JSONValue {
        let configuration = connection.configuration
        let backoff = configuration.reconnect.backoff
        let retries = RetryLoop(maxRetries: configuration.maxRequestRetries, backoff: backoff, maxRetryDelay: backoff.maxDelay)
        return try await retries.run(
            isSafeToRetry: { error, sent in
                let transient = error.code == .connectionLost || error.code == .timeout || error.code == .notConnected
                // With the fail policy, a request made while offline fails at once.
                let offlineFailure = !sent && configuration.offlinePolicy == .fail
                return transient && (call.isIdempotent || !sent) && !offlineFailure && connection.isRunning
            },
            cancelled: { ManagedConnectionError(.cancelled, "cancelled") }
        ) { (sent: SentFlag) async throws(ManagedConnectionError) -> JSONValue in
            try await Deadline.run(call.timeout) { () async throws(ManagedConnectionError) -> JSONValue in
                try await self.once(call.method, params: params, sent: sent)
            }
        }
    }

    private func once(_ method: String, params: JSONRPCParams?, sent: SentFlag) async throws(ManagedConnectionError) -> JSONValue {
        let link = try await connection.link()
        let id = correlator.nextID()
        let message = try encode(.request(id: .number(id), method: method, params: params))
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                    correlator.pending.withLock { $0[id] = Pending(continuation: continuation, generation: link.generation) }
                    if Task.isCancelled {
                        correlator.take(id)?.continuation.resume(throwing: CancellationError())
                        return
                    }
                    do {
                        try link.transport.enqueue(message)
                        sent.set()
                    } catch {
                        correlator.take(id)?.continuation.resume(
                            throwing: ManagedConnectionError(.notConnected, "the request could not be sent: \(error)"))
                    }
                }
            } onCancel: {
                correlator.take(id)?.continuation.resume(throwing: CancellationError())
            }
        } catch let error as ManagedConnectionError {
            throw error
        } catch {
            throw ManagedConnectionError(.cancelled, "cancelled")
        }
    }
}

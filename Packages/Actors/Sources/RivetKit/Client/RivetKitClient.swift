import NIOHTTP1
import RpcTransportNIO
import Synchronization
import Tracing

/// A RivetKit client: the endpoint, the `GET /metadata` lookup, handles to actors and the
/// realtime connections shared by everyone who uses the same actor identity.
///
/// ```swift
/// let client = RivetKitClient(ClientConfig(endpoint: "http://127.0.0.1:6420"))
/// let counter = client.getOrCreate("counter", key: ["my-counter"])
/// let count = try await counter.action("increment", args: [1])
/// await client.close()
/// ```
///
/// Or scoped with ``withClient(_:transports:isolation:_:)``, closed when the body returns or
/// throws.
public final class RivetKitClient: Sendable {
    /// The configuration as given.
    public let config: ClientConfig
    /// How the client reaches its server (``ClientTransports/network`` unless given).
    public let transports: ClientTransports
    /// The tracer of ``ClientConfig/observability`` that records, read once; `nil` when spans
    /// go nowhere, so that an action pays for one check.
    let tracer: (any Tracer)?

    private struct State {
        var resolved: ResolvedClientConfig?
        var http: (any ActorHTTPClient)?
        var shared: [String: (connection: ActorConnection, users: Int)] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let lookup = SerialLookup()
    /// The disposals of connections whose last user let go without waiting
    /// (``relinquishConnection(_:)``); ``close()`` awaits them.
    private let disposals = OwnedTasks<Int>()

    /// Creates a client; nothing is sent until it is used.
    ///
    /// - Parameters:
    ///   - config: The endpoint, credentials and limits.
    ///   - transports: How sockets and HTTP clients are opened; the network by default.
    public init(_ config: ClientConfig = ClientConfig(), transports: ClientTransports = .network) {
        self.config = config
        self.transports = transports
        self.tracer = config.observability.activeTracer
    }

    /// Creates a client, runs `body` with it, and closes it (every shared connection disposed,
    /// the HTTP connections closed) when `body` returns or throws.
    ///
    /// ```swift
    /// let count = try await RivetKitClient.withClient(ClientConfig(endpoint: "http://127.0.0.1:6420")) { client in
    ///     try await client.getOrCreate("counter", key: ["a"]).action("increment", args: [1])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - config: The endpoint, credentials and limits.
    ///   - transports: How sockets and HTTP clients are opened; the network by default.
    ///   - isolation: The actor `body` runs on; the caller's by default.
    ///   - body: What to do with the client.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withClient<T>(
        _ config: ClientConfig = ClientConfig(),
        transports: ClientTransports = .network,
        isolation: isolated (any _Concurrency.Actor)? = #isolation,
        _ body: (RivetKitClient) async throws -> T
    ) async throws -> T {
        let client = RivetKitClient(config, transports: transports)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(client))
        } catch {
            outcome = .failure(error)
        }
        await client.close()
        return try outcome.get()
    }

    /// Creates a client for an endpoint string.
    public convenience init(endpoint: String) {
        self.init(ClientConfig(endpoint: endpoint))
    }

    /// A handle to the actor of `name` and `key`, created on first use when there is none.
    public func getOrCreate(
        _ name: String, key: [String], params: JSONValue? = nil, createWithInput: JSONValue? = nil,
        createInRegion: String? = nil
    ) -> ActorHandle {
        ActorHandle(
            client: self,
            options: ActorOptions(
                name: name, key: key, params: params, createWithInput: createWithInput, createInRegion: createInRegion))
    }

    /// A handle to the actor of `name` and `key` that never creates it: HTTP actions look it
    /// up with `GET /actors` and a realtime connection uses the query gateway with
    /// `rvt-method=get`. A missing actor is ``ActorError`` `actor.not_found`.
    public func get(_ name: String, key: [String], params: JSONValue? = nil) -> ActorHandle {
        ActorHandle(client: self, options: ActorOptions(name: name, key: key, params: params, lookup: .get))
    }

    /// A handle to the actor with id `actorId`: actions go to `/gateway/{actorId}/action/…`
    /// and a realtime connection to `/gateway/{actorId}/connect` (with the `@token` segment
    /// when there is a token), without any lookup.
    public func getForId(_ name: String, actorId: String, params: JSONValue? = nil) -> ActorHandle {
        ActorHandle(client: self, options: ActorOptions(name: name, key: [], params: params, lookup: .id(actorId)))
    }

    /// Creates the actor of `name` and `key` with `POST /actors` and returns a handle to it by
    /// id (as ``getForId(_:actorId:params:)`` gives).
    ///
    /// - Parameters:
    ///   - name: The actor type's name.
    ///   - key: The new actor's key.
    ///   - params: The connection parameters the handle sends.
    ///   - input: The creation input, sent as base64 of CBOR; omitted when `nil`.
    ///   - region: The region (`datacenter`) to create it in; omitted when `nil`.
    /// - Throws: ``ActorError``: the server's error (`actor.duplicate_key` when an actor has
    ///   that key already), or `client.http_error`.
    public func create(
        _ name: String, key: [String], params: JSONValue? = nil, input: JSONValue? = nil, region: String? = nil
    ) async throws(ActorError) -> ActorHandle {
        let creation = ActorOptions(name: name, key: key, params: params, createWithInput: input, createInRegion: region)
        let id = try await ActorHandle.create(client: self, options: creation)
        return ActorHandle(client: self, options: ActorOptions(name: name, key: key, params: params, lookup: .id(id)))
    }

    /// The effective configuration: the endpoint's rules applied, then the server's metadata
    /// overrides (`clientEndpoint`, `clientNamespace`, `clientToken`) unless the lookup is
    /// disabled. The lookup is made until it succeeds once: each use that needs it tries it up to
    /// ``ClientConfig/metadataLookupAttempts`` times with backoff (500 ms to 15 s), then fails.
    ///
    /// - Throws: ``ActorError`` `client.config_error`, `client.http_error` when the lookup gave
    ///   up, or `client.closed` after ``close()``.
    public func resolvedConfig() async throws(ActorError) -> ResolvedClientConfig {
        try await resolvedState().config
    }

    func resolvedState() async throws(ActorError) -> (config: ResolvedClientConfig, http: any ActorHTTPClient) {
        if let ready = try currentState() { return ready }
        return try await lookup.run { () async throws(ActorError) -> (ResolvedClientConfig, any ActorHTTPClient) in
            if let ready = try self.currentState() { return ready }
            var resolved = try self.config.resolved()
            var http = try self.httpClient(resolved)
            if !resolved.disableMetadataLookup {
                let metadata: JSONValue
                do throws(ActorError) {
                    metadata = try await Self.fetchMetadata(
                        http: http, config: resolved, attempts: self.config.metadataLookupAttempts)
                } catch {
                    await http.close()
                    throw error
                }
                var overridden = resolved
                if case .string(let endpoint)? = metadata["clientEndpoint"] {
                    overridden.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
                }
                if case .string(let namespace)? = metadata["clientNamespace"] { overridden.namespace = namespace }
                if case .string(let token)? = metadata["clientToken"] { overridden.token = token }
                if overridden.endpoint != resolved.endpoint {
                    await http.close()
                    http = try self.httpClient(overridden)
                }
                resolved = overridden
            }
            let stored = self.state.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.resolved = resolved
                state.http = http
                return true
            }
            guard stored else {
                await http.close()
                throw ActorError(.clientClosed, "the client is closed")
            }
            return (resolved, http)
        }
    }

    private func currentState() throws(ActorError) -> (config: ResolvedClientConfig, http: any ActorHTTPClient)? {
        try state.withLock { state throws(ActorError) -> (ResolvedClientConfig, any ActorHTTPClient)? in
            guard !state.closed else { throw ActorError(.clientClosed, "the client is closed") }
            guard let resolved = state.resolved, let http = state.http else { return nil }
            return (resolved, http)
        }
    }

    private func httpClient(_ config: ResolvedClientConfig) throws(ActorError) -> any ActorHTTPClient {
        do {
            return try transports.makeHTTPClient(config.endpoint, config.headers)
        } catch {
            throw ActorError(.clientConfigError, "the endpoint cannot be used: \(error.message)")
        }
    }

    private static func fetchMetadata(
        http: any ActorHTTPClient, config: ResolvedClientConfig, attempts: Int
    ) async throws(ActorError) -> JSONValue {
        let backoff = Backoff(initialDelay: .milliseconds(500), maxDelay: .seconds(15), jitter: .none)
        var headers = HTTPHeaders()
        if let token = config.token { headers.add(name: "authorization", value: "Bearer \(token)") }
        let path = "/metadata?namespace=\(HTTPQuery.percentEncode(config.namespace))"
        let tries = max(attempts, 1)
        let retries = RetryLoop(maxRetries: tries - 1, backoff: backoff, maxRetryDelay: backoff.maxDelay)
        do throws(ActorError) {
            // The one retry loop: every failed lookup is tried again, up to the attempts allowed.
            return try await retries.run(
                isSafeToRetry: { error, _ in error.errorCode == .clientHTTPError },
                cancelled: { ActorError(.clientCancelled, "the metadata lookup was cancelled") }
            ) { (_: SentFlag) async throws(ActorError) -> JSONValue in
                let response: HTTPClientResponse
                do throws(TransportError) {
                    response = try await http.execute(HTTPClientRequest(method: .GET, path: path, headers: headers))
                } catch {
                    throw ActorError(.clientHTTPError, "GET /metadata: \(error.message)")
                }
                guard (200 ..< 300).contains(response.status) else {
                    throw ActorError(.clientHTTPError, "GET /metadata answered \(response.status)")
                }
                guard let body = try? JSONValue(parsing: response.body), case .object = body else {
                    throw ActorError(.clientHTTPError, "GET /metadata answered with no JSON object")
                }
                return body
            }
        } catch {
            guard error.errorCode == .clientHTTPError else { throw error }
            throw ActorError(
                .clientHTTPError, "the metadata lookup failed \(tries) times (metadataLookupAttempts): \(error.message)")
        }
    }

    // MARK: Shared connections

    /// The connection for `options`' identity hash, shared and counted: the same object for
    /// every user of the hash, until the last one releases it.
    public func acquireConnection(_ options: ActorOptions) -> ActorConnection {
        state.withLock { state in
            let hash = options.hash
            if let entry = state.shared[hash] {
                state.shared[hash] = (entry.connection, entry.users + 1)
                return entry.connection
            }
            let connection = ActorConnection(client: self, options: options)
            state.shared[hash] = (connection, 1)
            return connection
        }
    }

    /// Releases one use of a shared connection; the last release disposes it, and this waits
    /// for that.
    public func releaseConnection(_ connection: ActorConnection) async {
        let dispose = state.withLock { state in Self.releaseUse(of: connection, in: &state) }
        if dispose { await connection.dispose() }
    }

    /// Releases one use of a shared connection without waiting: the last release disposes it
    /// in a task the client owns, which ``close()`` awaits. What a user that goes away does.
    func relinquishConnection(_ connection: ActorConnection) {
        state.withLock { state in
            // Spawned under the lock, so that a close that follows awaits it.
            if Self.releaseUse(of: connection, in: &state) { disposals.spawn { await connection.dispose() } }
        }
    }

    /// Counts one use of `connection` down; `true` when it was the last (the entry is gone).
    private static func releaseUse(of connection: ActorConnection, in state: inout State) -> Bool {
        let hash = connection.options.hash
        guard let entry = state.shared[hash], entry.connection === connection else { return false }
        if entry.users <= 1 {
            state.shared[hash] = nil
            return true
        }
        state.shared[hash] = (entry.connection, entry.users - 1)
        return false
    }

    /// How many users share the connection of `hash` (0 when there is none).
    public func connectionUsers(hash: String) -> Int {
        state.withLock { $0.shared[hash]?.users ?? 0 }
    }

    /// Disposes every shared connection, awaits the disposals of those released without
    /// waiting, and closes the HTTP connections.
    public func close() async {
        let (http, connections) = state.withLock { state -> ((any ActorHTTPClient)?, [ActorConnection]) in
            state.closed = true
            defer { state.shared = [:] }
            return (state.http, state.shared.values.map(\.connection))
        }
        for connection in connections { await connection.dispose() }
        await disposals.close()
        await http?.close()
    }
}

/// Runs one body at a time; later callers wait for the running one (the metadata lookup).
actor SerialLookup {
    private var running = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async throws(ActorError) -> T) async throws(ActorError) -> T {
        if running {
            await withCheckedContinuation { waiters.append($0) }
        } else {
            running = true
        }
        defer {
            if waiters.isEmpty { running = false } else { waiters.removeFirst().resume() }
        }
        return try await body()
    }
}

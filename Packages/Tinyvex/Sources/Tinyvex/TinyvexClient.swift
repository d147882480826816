#if canImport(Combine)
public import Combine
#else
public import OpenCombine
#endif
public import Foundation
public import RpcTransport
import NIOHTTP1
import RpcDo
import RpcTransportNIO
import RpcWire
import Synchronization
import TinyvexProtocol
import Tracing

/// A Tinyvex client: live queries as publishers or async streams, mutations and actions, on one
/// reconnecting WebSocket (docs/tinyvex-protocol.md).
///
/// ```swift
/// try await TinyvexClient.withClient(endpoint: url) { client in
///     let cancellable = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
///         .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
///     let id = try await client.mutation("messages.send", args: message, as: Int.self)
///     print(id)
///     cancellable.cancel()
/// }
/// ```
///
/// Identical subscriptions (same name, same params once canonicalised) share one upstream
/// subscription; the last one cancelled unsubscribes. The connection opens with the first call
/// and is supervised by one ``ReconnectingConnection``: it reconnects with backoff,
/// probes the server with WebSocket pings, and runs a ready handshake on every new link
/// (`tinyvex/connect` with the client's id and token, then every live query resubscribed with
/// its `lastSeq`); calls wait for the handshake. A mutation is sent again after a lost
/// connection with its `requestId`, which the server applies once; an action in flight when the
/// connection drops fails with ``TinyvexError/transport(_:)`` unless it was marked idempotent.
/// When reconnecting gives up, the next subscription or call starts the connection again. Use
/// ``withClient(endpoint:configuration:transportFactory:isolation:_:)``, or call ``close()``
/// when done.
public final class TinyvexClient: Sendable {
    /// The server's WebSocket URL.
    public let endpoint: URL
    /// The settings.
    public let configuration: TinyvexClientConfiguration

    /// What the client's background tasks are known by.
    private enum Job: Hashable, Sendable {
        /// Sending the first `tinyvex/subscribe` of an upstream subscription.
        case subscribe(String)
        /// Fetching a token from the provider for the ready link.
        case token
    }

    private let core: TinyvexClientCore
    /// The tracer of ``TinyvexClientConfiguration/observability`` that records, read once;
    /// `nil` when spans go nowhere, so that a request pays for one check.
    private let tracer: (any Tracer)?
    private let channel: JSONRPCChannel
    private let tasks = OwnedTasks<Job>()
    private let states: StateBroadcaster<ConnectionState>
    let deliverer: Deliverer
    private var registry: SubscriptionRegistry { core.registry }
    /// This client's id (see ``TinyvexClientCore/clientID``).
    var clientID: String { core.clientID }
    /// The version of the newest transition applied and every live query's value, read at once
    /// (for tests of consistent snapshots).
    var localSnapshot: (version: Int64?, values: [(name: String, params: JSONValue, value: JSONValue?)]) { registry.snapshot }

    /// Opens a transport to the server with the headers current at that moment; it must stop
    /// when its task is cancelled.
    public typealias TransportFactory = @Sendable (_ headers: [String: String]) async throws -> any MessageTransport

    /// Creates a client; nothing connects until the first subscription or call.
    public convenience init(endpoint: URL) {
        self.init(endpoint: endpoint, configuration: TinyvexClientConfiguration())
    }

    /// Creates a client with explicit settings; nothing connects until the first subscription
    /// or call.
    ///
    /// - Parameters:
    ///   - endpoint: The server's WebSocket URL.
    ///   - configuration: The settings.
    ///   - transportFactory: Opens each connection's transport; `nil` (the default) opens a
    ///     WebSocket to `endpoint`. Another factory serves the client over another transport
    ///     (an in-memory pair to an embedded server, in tests).
    public init(endpoint: URL, configuration: TinyvexClientConfiguration, transportFactory: TransportFactory? = nil) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.deliverer = Deliverer(configuration.delivery)
        let core = TinyvexClientCore(transitions: configuration.consistentSnapshots)
        self.core = core
        self.tracer = configuration.observability.activeTracer
        let url = endpoint.absoluteString
        let handshakeTimeout = configuration.handshakeTimeout
        let channel = JSONRPCChannel(
            configuration: configuration.connectionConfiguration,
            settings: configuration.channelSettings,
            factory: transportFactory ?? { headers in
                var webSocket = WebSocketClientConfiguration()
                for (name, value) in headers { webSocket.headers.replaceOrAdd(name: name, value: value) }
                return try await WebSocketClient.connect(to: url, configuration: webSocket)
            },
            handshake: { channel, link in try await core.handshake(channel, on: link, timeout: handshakeTimeout) },
            ready: { channel, link in core.ready(channel, link: link) },
            onNotification: { method, params in core.notify(method, params) })
        self.channel = channel
        let states = StateBroadcaster(channel.connection.state)
        self.states = states
        channel.connection.onStateChange { state in states.subject.send(state) }
        channel.connection.onLoss { generation in core.lost(generation: generation) }
    }

    /// Creates a client, runs `body` with it, and closes it when `body` returns or throws, so
    /// that nothing the client started outlives the scope.
    ///
    /// ```swift
    /// let id = try await TinyvexClient.withClient(endpoint: url) { client in
    ///     try await client.mutation("messages.send", args: message, as: Int64.self)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: The server's WebSocket URL.
    ///   - configuration: The settings.
    ///   - transportFactory: Opens each connection's transport; `nil` for a WebSocket to
    ///     `endpoint` (see ``init(endpoint:configuration:transportFactory:)``).
    ///   - isolation: The caller's isolation, which `body` runs on.
    ///   - body: Uses the client.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withClient<T>(
        endpoint: URL,
        configuration: TinyvexClientConfiguration = TinyvexClientConfiguration(),
        transportFactory: TransportFactory? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TinyvexClient) async throws -> T
    ) async throws -> T {
        let client = TinyvexClient(endpoint: endpoint, configuration: configuration, transportFactory: transportFactory)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(client))
        } catch {
            outcome = .failure(error)
        }
        await client.close()
        return try outcome.get()
    }

    deinit {
        // Dropped without close(): nothing the client started outlives it.
        tasks.abandon()
        channel.connection.abandon()
    }

    /// The connection's states, starting with the current one, delivered where
    /// ``TinyvexClientConfiguration/delivery`` says (the main queue by default).
    public var connectionState: AnyPublisher<ConnectionState, Never> {
        deliverer.deliver(states.subject)
    }

    /// The number of upstream subscriptions the client holds: one per distinct live query.
    public var upstreamSubscriptionCount: Int { registry.upstreamCount }

    /// How many `tinyvex/subscribe` requests the client has sent (first ones and resumes).
    public var subscribeRequestCount: Int { core.subscribeRequestCount }

    /// Closes the connection, ends every subscription with a transport error (delivered to the
    /// publishers' subscribers before this returns) and stops the background work (cancelled
    /// and awaited). Calls and subscriptions made afterwards fail
    /// with a transport error.
    public func close() async {
        core.close()
        await tasks.close()
        await channel.connection.close()
        let hadPublishers = deliverer.hasLivePublishers
        registry.failAll(Self.closedError)
        // The publishers' subscribers have their completion when this returns.
        await deliverer.drain(force: hadPublishers)
    }

    /// Whether ``close()`` was called.
    private var isClosed: Bool { core.isClosed }

    /// The failure of calls and subscriptions of a closed client.
    private static var closedError: TinyvexError {
        .transport(ManagedConnectionError(.closed, "the client was closed").rpcFailure)
    }

    // MARK: Subscriptions

    /// The live value of the query `name` with `params`, as a publisher: the current value, then
    /// each new one. A server error or a value that does not decode ends it with a failure;
    /// cancelling the last subscriber of the query unsubscribes upstream. Values and the
    /// completion arrive where ``TinyvexClientConfiguration/delivery`` says: on the main queue
    /// (the main actor) by default, so a `sink` in main-actor code is safe.
    public func subscribe<T: Decodable & SendableMetatype>(_ name: String, params: any Encodable, as type: T.Type) -> AnyPublisher<T, TinyvexError> {
        let query: (key: String, params: JSONValue)
        do {
            query = try Self.canonical(name, params)
        } catch {
            return Fail(error: error).eraseToAnyPublisher()
        }
        return Deferred { () -> AnyPublisher<T, TinyvexError> in
            let box = SubjectBox<T, TinyvexError>()
            let listenerID = Mutex<UInt64?>(nil)
            let id = self.attach(key: query.key, name: name, params: query.params) { [weak self] event in
                switch event {
                case .value(let value):
                    do {
                        box.subject.send(try JSONValueDecoder().decode(T.self, from: value))
                    } catch {
                        box.subject.send(completion: .failure(.decoding("\(error)")))
                        if let id = listenerID.withLock({ $0 }) { self?.detach(key: query.key, listenerID: id) }
                    }
                case .failure(let error):
                    box.subject.send(completion: .failure(error))
                }
            }
            listenerID.withLock { $0 = id }
            let deliverer = self.deliverer
            deliverer.publisherStarted()
            // Counted until it ends or is cancelled, whichever comes first.
            let ended = Atomic<Bool>(false)
            let end: @Sendable () -> Void = {
                if !ended.exchange(true, ordering: .relaxed) { deliverer.publisherEnded() }
            }
            return deliverer.deliver(
                box.subject
                    .compactMap { $0 }
                    .handleEvents(
                        receiveCompletion: { _ in end() },
                        receiveCancel: { [weak self] in
                            end()
                            self?.detach(key: query.key, listenerID: id)
                        }))
        }
        .eraseToAnyPublisher()
    }

    /// The live value of the query `name` with `params`, as an async stream: the current value,
    /// then each new one (a slow reader gets the newest values). A server error or a value that
    /// does not decode ends it by throwing a ``TinyvexError``; ending the iteration of the last
    /// reader of the query unsubscribes upstream.
    public func subscribe<T: Decodable & SendableMetatype>(_ name: String, params: any Encodable, as type: T.Type) -> AsyncThrowingStream<T, any Error> {
        let query: (key: String, params: JSONValue)
        do {
            query = try Self.canonical(name, params)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let (stream, continuation) = AsyncThrowingStream<T, any Error>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let listenerID = Mutex<UInt64?>(nil)
        let id = attach(key: query.key, name: name, params: query.params) { [weak self] event in
            switch event {
            case .value(let value):
                do {
                    continuation.yield(try JSONValueDecoder().decode(T.self, from: value))
                } catch {
                    continuation.finish(throwing: TinyvexError.decoding("\(error)"))
                    if let id = listenerID.withLock({ $0 }) { self?.detach(key: query.key, listenerID: id) }
                }
            case .failure(let error):
                continuation.finish(throwing: error)
            }
        }
        listenerID.withLock { $0 = id }
        continuation.onTermination = { [weak self] _ in self?.detach(key: query.key, listenerID: id) }
        return stream
    }

    func attach(key: String, name: String, params: JSONValue, listener: @escaping SubscriptionRegistry.Listener) -> UInt64 {
        guard !isClosed else {
            listener(.failure(Self.closedError))
            return 0
        }
        let added = registry.add(key: key, name: name, params: params, listener: listener)
        if let current = added.current {
            listener(.value(current))
        }
        if added.isNew {
            // Registered before it is sent: a handshake that begins from now on resubscribes it,
            // and this sends it on the ready link unless that link's handshake already did.
            tasks.spawn(.subscribe(added.subID)) { [weak self] in await self?.subscribeFirst(subID: added.subID, name: name) }
        }
        return added.listenerID
    }

    func detach(key: String, listenerID: UInt64) {
        guard let subID = registry.remove(key: key, listenerID: listenerID) else { return }
        tasks.cancel(.subscribe(subID))
        core.unsubscribe(subID: subID, channel)
    }

    /// Sends the first `tinyvex/subscribe` of a new upstream subscription: starts the connection
    /// when it is not running (failing the subscription when it cannot be opened), then sends it
    /// on the ready link unless that link's handshake already resubscribed it. A link lost
    /// meanwhile leaves it to the next link's handshake.
    ///
    /// With a tracer, this is the client span `tinyvex.subscribe <name>`.
    private func subscribeFirst(subID: String, name: String) async {
        do {
            try await traced("tinyvex.subscribe", name) { try await self.sendFirstSubscribe(subID: subID) }
        } catch {
            // Reported to the subscription when the connection could not be opened; otherwise
            // (closed, cancelled, gave up or lost) the next link's handshake resubscribes it.
        }
    }

    /// ``subscribeFirst(subID:name:)`` without its span; throws why it was not answered.
    private func sendFirstSubscribe(subID: String) async throws {
        do {
            try await channel.connection.start()
        } catch {
            if !Task.isCancelled { registry.fail(subID: subID, .transport(RpcFailure(error))) }
            throw error
        }
        let link = try await channel.connection.link()
        try await core.subscribeFirst(subID: subID, channel, on: link, timeout: configuration.requestTimeout)
    }

    // MARK: One-shot queries

    /// The current value of the query `name` with `params`, read once (`tinyvex/query`):
    /// nothing is subscribed and no later value comes. It goes through the client's connection
    /// like a mutation (started when needed, sent again after a lost connection, as reading
    /// twice changes nothing) and fails the same way. It reads what the server has committed,
    /// so it sees every mutation of this client that has returned.
    ///
    /// ```swift
    /// let messages = try await client.query("messages.list", params: ["channel": "general"], as: [Message].self)
    /// ```
    ///
    /// - Throws: ``TinyvexError``: ``TinyvexError/server(code:message:data:)`` with `TVX002`
    ///   for an unknown query or params it refuses, `TVX006` for a query that needs an
    ///   identity, `TVX007` past the server's evaluation time; ``TinyvexError/decoding(_:)``
    ///   for params that do not encode or a value that does not decode;
    ///   ``TinyvexError/transport(_:)`` when the server cannot be reached.
    public func query<T: Decodable>(_ name: String, params: any Encodable, as type: T.Type) async throws -> T {
        let params: JSONObject = ["name": .string(name), "params": try Self.encode(params)]
        return try await traced("tinyvex.query", name) {
            try await call(TinyvexMethod.query, params: params, idempotent: true, as: type)
        }
    }

    // MARK: Mutations, actions, auth

    /// Runs the mutation `name` with `args` and decodes its result. When this returns, every
    /// subscription of this client that the mutation changed has received its new value (a
    /// publisher's subscriber too, on its delivery queue).
    ///
    /// - Throws: ``TinyvexError``.
    public func mutation<T: Decodable>(_ name: String, args: any Encodable, as type: T.Type) async throws -> T {
        let requestID = UUID().uuidString
        let params: JSONObject = [
            "requestId": .string(requestID), "clientId": .string(clientID), "name": .string(name), "args": try Self.encode(args),
        ]
        let result = try await traced("tinyvex.mutation", name) {
            try await call(TinyvexMethod.mutation, params: params, idempotent: true, as: type)
        }
        // The new values were handed to the delivery queue before the answer came: wait for
        // them to be delivered, so the caller sees its own write.
        await deliverer.drain()
        return result
    }

    /// Runs the mutation `name` with `args` as ``mutation(_:args:as:)`` does, and shows its
    /// expected effect at once: `optimisticUpdate` edits the values of the live queries (a
    /// ``OptimisticLocalStore``) and their subscribers receive the edited values before the
    /// mutation is sent. The edit lasts until the server's values that include the mutation
    /// arrive, which replace it (in the same step, so nothing flickers), or until the mutation
    /// fails, which rolls it back. Edits of several mutations in flight apply in the order the
    /// mutations were made, each over the server's newest values.
    ///
    /// ```swift
    /// let id = try await client.mutation("messages.send", args: draft, as: Int64.self) { store in
    ///     let params = ["channel": draft.channel]
    ///     var messages = store.getQuery("messages.list", params: params, as: [Message].self) ?? []
    ///     messages.append(Message(id: -1, channel: draft.channel, author: draft.author, text: draft.text))
    ///     store.setQuery("messages.list", params: params, value: messages)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The mutation's name.
    ///   - args: The mutation's arguments.
    ///   - type: The type its result decodes as.
    ///   - optimisticUpdate: Edits the store; it runs at once and again whenever the server's
    ///     values change while the mutation is in flight, under the client's lock: it must only
    ///     read and write the store (no calls of the client, no waiting).
    /// - Throws: What ``mutation(_:args:as:)`` throws; the edit is rolled back first.
    public func mutation<T: Decodable>(
        _ name: String, args: any Encodable, as type: T.Type, optimisticUpdate: @escaping @Sendable (inout OptimisticLocalStore) -> Void
    ) async throws -> T {
        let requestID = UUID().uuidString
        let params: JSONObject = [
            "requestId": .string(requestID), "clientId": .string(clientID), "name": .string(name), "args": try Self.encode(args),
        ]
        registry.addOptimistic(id: requestID, optimisticUpdate)
        do {
            let result = try await traced("tinyvex.mutation", name) {
                try await call(TinyvexMethod.mutation, params: params, idempotent: true, as: type)
            }
            // Normally dropped already, by the transition that showed the mutation; a mutation
            // that changed none of this client's queries is done with its answer.
            registry.dropOptimistic([requestID])
            await deliverer.drain()
            return result
        } catch {
            registry.dropOptimistic([requestID])
            await deliverer.drain()
            throw error
        }
    }

    /// Runs the action `name` with `args` and decodes its result.
    ///
    /// - Parameters:
    ///   - name: The action's name.
    ///   - args: The action's arguments.
    ///   - type: The type its result decodes as.
    ///   - idempotent: Whether the action may be sent again when the connection drops while it
    ///     runs; otherwise that fails with ``TinyvexError/transport(_:)``.
    /// - Throws: ``TinyvexError``.
    public func action<T: Decodable>(_ name: String, args: any Encodable, as type: T.Type, idempotent: Bool = false) async throws -> T {
        let params: JSONObject = ["requestId": .string(UUID().uuidString), "name": .string(name), "args": try Self.encode(args)]
        return try await traced("tinyvex.action", name) {
            try await call(TinyvexMethod.action, params: params, idempotent: idempotent, as: type)
        }
    }

    /// Sets (or with `nil` clears) the token the server's auth hook checks: written at once on
    /// the ready link (so every later call runs with it), and sent in `tinyvex/connect` after
    /// every reconnect. A refused token shows in the calls that need an identity, which fail
    /// with `TVX006`.
    /// It replaces a provider set with ``setAuthTokenProvider(_:)``.
    public func setAuthToken(_ token: String?) {
        tasks.cancel(.token)
        core.setToken(token, channel)
    }

    /// Fetches tokens from `provider` from now on, as Convex's `setAuth`: it is called before
    /// every connection's `tinyvex/connect` (the first one and each reconnect) with
    /// `forceRefresh` `false`, at once when a connection is ready, and again with `forceRefresh`
    /// `true` when the server refuses the token it returned (expired or invalid: `TVX006`,
    /// `data.details.reason` `tokenExpired` or `tokenRefused`); in a handshake that new token is
    /// written before the connection's subscriptions are made again. It is asked at most once
    /// more per connection, so a provider that keeps failing does not loop. `nil` means no token. A later
    /// ``setAuthToken(_:)`` or provider replaces it.
    ///
    /// ```swift
    /// client.setAuthTokenProvider { forceRefresh in
    ///     try? await session.idToken(refreshing: forceRefresh)
    /// }
    /// ```
    ///
    /// - Parameter provider: Returns the token; it should return promptly, as a connection's
    ///   handshake waits for it.
    public func setAuthTokenProvider(_ provider: @escaping @Sendable (_ forceRefresh: Bool) async -> String?) {
        guard let fetch = core.setTokenProvider(provider) else { return }
        let (core, channel, timeout) = (self.core, self.channel, configuration.requestTimeout)
        tasks.spawn(.token) { await core.fetchForReadyLink(fetch, channel, timeout: timeout) }
    }

    /// Runs `body`, a request for `name`, in a client span `kind name` when a tracer records
    /// (its context current while it runs, so that a connection it starts carries it); otherwise
    /// just runs it.
    private func traced<T>(_ kind: String, _ name: String, _ body: () async throws -> T) async throws -> T {
        guard let tracer else { return try await body() }
        return try await RpcClientSpan.run(
            "\(kind) \(name)", system: "tinyvex", method: name, tracer: tracer,
            code: { (error: any Error) in RpcFailure(error).code.rawValue }
        ) { _ in
            try await body()
        }
    }

    private func call<T: Decodable>(_ method: String, params: JSONObject, idempotent: Bool, as type: T.Type) async throws -> T {
        guard !isClosed else { throw Self.closedError }
        do {
            // Connected: at once. Connecting or reconnecting: waits for the ready link. Never
            // started, or gave up: starts again.
            try await channel.connection.start()
        } catch {
            throw TinyvexError.transport(RpcFailure(error))
        }
        if isClosed {
            // Closed while this started the connection again: close that one too.
            await channel.connection.close()
            throw Self.closedError
        }
        let result: JSONValue
        do {
            // The channel's one retry loop sends an idempotent request again after a lost link.
            result = try await channel.request(method, params: .named(params), idempotent: idempotent)
        } catch {
            throw Self.tinyvexError(error)
        }
        do {
            return try JSONValueDecoder().decode(T.self, from: result["value"] ?? .null)
        } catch {
            throw TinyvexError.decoding("\(error)")
        }
    }

    // MARK: Helpers

    /// The dedupe key (name and params encoded with sorted keys and unescaped slashes) and the
    /// params as a JSON value.
    static func canonical(_ name: String, _ params: any Encodable) throws(TinyvexError) -> (key: String, params: JSONValue) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(params)
            let value = try JSONParser().parse(Array(data))
            return (name + "\u{0}" + String(decoding: data, as: UTF8.self), value)
        } catch {
            throw .decoding("the params do not encode: \(error)")
        }
    }

    private static func encode(_ args: any Encodable) throws(TinyvexError) -> JSONValue {
        do {
            return try JSONValueEncoder().encode(args)
        } catch {
            throw .decoding("the args do not encode: \(error)")
        }
    }

    /// A channel's failure as the client reports it: the server's error with its Tinyvex code,
    /// or a transport failure keeping the channel's error as its cause.
    static func tinyvexError(_ error: ManagedConnectionError) -> TinyvexError {
        guard error.code == .remote, let remote = error.remote else {
            return .transport(error.rpcFailure)
        }
        if let code = remote.data?["code"]?.stringValue {
            return .server(code: code, message: remote.message, data: remote.data?["details"])
        }
        return .server(code: String(remote.code), message: remote.message, data: remote.data)
    }
}

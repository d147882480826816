#if canImport(Combine)
public import Combine
#else
public import OpenCombine
#endif
public import Foundation
public import RpcTransport
import RpcDo
import RpcTransportNIO
import RpcWire
import Synchronization
import TinyvexProtocol

/// A Tinyvex client: live queries as publishers or async streams, mutations and actions, on one
/// reconnecting WebSocket (docs/tinyvex-protocol.md).
///
/// ```swift
/// let client = TinyvexClient(endpoint: URL(string: "ws://127.0.0.1:9099/")!)
/// let cancellable = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// let id = try await client.mutation("messages.send", args: message, as: Int.self)
/// ```
///
/// Identical subscriptions (same name, same params once canonicalised) share one upstream
/// subscription; the last one cancelled unsubscribes. The connection opens with the first call,
/// reconnects with backoff, probes the server with `tinyvex/ping`, and after a reconnect sets
/// the token again and resubscribes every live query with its `lastSeq`. A mutation is resent
/// after a reconnect with its `requestId`, which the server applies once; an action in flight
/// when the connection drops fails with ``TinyvexError/transport(_:)`` unless it was marked
/// idempotent. When reconnecting gives up, the next subscription or call starts the connection
/// again. Call ``close()`` when done.
public final class TinyvexClient: Sendable {
    /// The server's WebSocket URL.
    public let endpoint: URL
    /// The settings.
    public let configuration: TinyvexClientConfiguration

    private let channel: JSONRPCChannel
    private let registry: SubscriptionRegistry
    private let tasks = TaskSet()
    private let gate = RestoreGate()
    private let states: StateBroadcaster<ConnectionState>
    private let lifecycle = Mutex(Lifecycle())
    private let subscribeRequests = Atomic<Int>(0)
    /// This client's id, random per instance and kept across reconnects: the server keeps the
    /// results of its mutations under it, so a resend after a reconnect is answered once and no
    /// other client's `requestId` can meet them.
    let clientID = UUID().uuidString

    private struct Lifecycle {
        var starting: Task<Result<Void, TinyvexError>, Never>?
        var token: String?
        /// The last `auth.setToken` sent; later requests wait for it so they run with the token.
        var tokenSend: Task<Void, Never>?
        var closed = false
    }

    /// Creates a client; nothing connects until the first subscription or call.
    public convenience init(endpoint: URL) {
        self.init(endpoint: endpoint, configuration: TinyvexClientConfiguration())
    }

    /// Opens a transport to the server with the headers current at that moment; it must stop
    /// when its task is cancelled.
    public typealias TransportFactory = @Sendable (_ headers: [String: String]) async throws -> any MessageTransport

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
        let registry = SubscriptionRegistry()
        self.registry = registry
        let url = endpoint.absoluteString
        channel = JSONRPCChannel(
            configuration: configuration.connectionConfiguration,
            factory: transportFactory ?? { _ in try await WebSocketClient.connect(to: url) },
            pingMethod: TinyvexMethod.ping,
            onNotification: { method, params in Self.notify(registry, method, params) })
        let states = StateBroadcaster(channel.connection.state)
        self.states = states
        let gate = self.gate
        channel.connection.connection.onStateChange { [weak self] state in
            switch state {
            case .connected:
                self?.restore(epoch: gate.epoch)
            case .disconnected:
                // Given up or closed: waiting calls go on and fail with a transport error.
                gate.close()
                gate.open(epoch: nil)
            default:
                gate.close()
            }
            states.subject.send(state)
        }
    }

    /// The connection's states, starting with the current one.
    public var connectionState: AnyPublisher<ConnectionState, Never> {
        states.subject.eraseToAnyPublisher()
    }

    /// The number of upstream subscriptions the client holds: one per distinct live query.
    public var upstreamSubscriptionCount: Int { registry.upstreamCount }

    /// How many `tinyvex/subscribe` requests the client has sent (first ones and resumes).
    public var subscribeRequestCount: Int { subscribeRequests.load(ordering: .relaxed) }

    /// Closes the connection, ends every subscription with a transport error and stops the
    /// background work.
    public func close() async {
        let (starting, tokenSend) = lifecycle.withLock { state in
            state.closed = true
            return (state.starting, state.tokenSend)
        }
        tokenSend?.cancel()
        await tokenSend?.value
        await tasks.cancelAll()
        gate.open(epoch: nil)
        // Closing first ends a start that waits for a reconnect; one that began just before
        // `closed` was set may then have restarted the connection, so close it again once that
        // start is over (no new one can begin).
        await channel.connection.close()
        _ = await starting?.value
        await channel.connection.close()
        registry.failAll(.transport(ManagedConnectionError(.closed, "the client was closed").rpcFailure))
    }

    // MARK: Subscriptions

    /// The live value of the query `name` with `params`, as a publisher: the current value, then
    /// each new one. A server error or a value that does not decode ends it with a failure;
    /// cancelling the last subscriber of the query unsubscribes upstream. Values arrive on the
    /// connection's thread; use `receive(on:)` to move them (to the main actor, say).
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
            return box.subject
                .compactMap { $0 }
                .handleEvents(receiveCancel: { [weak self] in self?.detach(key: query.key, listenerID: id) })
                .eraseToAnyPublisher()
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

    private func attach(key: String, name: String, params: JSONValue, listener: @escaping SubscriptionRegistry.Listener) -> UInt64 {
        let added = registry.add(key: key, name: name, params: params, listener: listener)
        if let current = added.current {
            listener(.value(current))
        }
        if added.isNew {
            // The query is registered before the state is read: either the connection is up and
            // this sends it, or the next `connected` state (its restore reads the registry after
            // the state changed) resubscribes every live query, this one included. `start()`
            // makes sure there will be a next `connected` state: it starts the connection again
            // when reconnecting gave up.
            if channel.connection.state.isConnected {
                tasks.run { [weak self] in await self?.sendSubscribe(subID: added.subID, name: name, params: params, lastSeq: nil) }
            } else {
                tasks.run { [weak self] in await self?.startOrFail(subID: added.subID) }
            }
        }
        return added.listenerID
    }

    private func detach(key: String, listenerID: UInt64) {
        guard let subID = registry.remove(key: key, listenerID: listenerID) else { return }
        guard channel.connection.state.isConnected else { return }
        tasks.run { [weak self] in
            // TVX001 (already gone) and a lost connection both leave nothing to undo.
            _ = try? await self?.channel.request(TinyvexMethod.unsubscribe, params: .named(["subId": .string(subID)]))
        }
    }

    private func sendSubscribe(subID: String, name: String, params: JSONValue, lastSeq: Int64?) async {
        var members: JSONObject = ["subId": .string(subID), "name": .string(name), "params": params]
        if let lastSeq { members.updateValue(.integer(lastSeq), forKey: "lastSeq") }
        await tokenSent()
        subscribeRequests.add(1, ordering: .relaxed)
        do {
            _ = try await channel.request(TinyvexMethod.subscribe, params: .named(members))
        } catch {
            if error.code == .remote {
                registry.fail(subID: subID, Self.tinyvexError(error))
            } else if case .disconnected = channel.connection.state {
                // Reconnecting gave up while this waited (giving up publishes `disconnected`
                // before it fails the waiting requests): no `connected` state would ever
                // resubscribe it, so start the connection again.
                await startOrFail(subID: subID)
            }
            // A lost connection resubscribes on the next one.
        }
    }

    /// Starts the connection (again, when reconnecting gave up) so that its `connected` state
    /// resubscribes `subID`; fails the subscription when the connection cannot be opened.
    private func startOrFail(subID: String) async {
        if case .failure(let error) = await start() {
            registry.fail(subID: subID, error)
        }
    }

    /// After each (re)connect: `tinyvex/connect` with the client's id and token first, then
    /// every live query with its `lastSeq`; then the gate opens for the calls waiting to be sent.
    private func restore(epoch: UInt64) {
        tasks.run { [weak self] in
            guard let self else { return }
            var members: JSONObject = ["clientId": .string(self.clientID)]
            if let token = self.lifecycle.withLock({ $0.token }) {
                members.updateValue(.string(token), forKey: "token")
            }
            _ = try? await self.channel.request(TinyvexMethod.connect, params: .named(members))
            await withTaskGroup(of: Void.self) { group in
                for upstream in self.registry.live {
                    group.addTask { [weak self] in
                        await self?.sendSubscribe(subID: upstream.subID, name: upstream.name, params: upstream.params, lastSeq: upstream.lastSeq)
                    }
                }
            }
            self.gate.open(epoch: epoch)
        }
    }

    // MARK: Mutations, actions, auth

    /// Runs the mutation `name` with `args` and decodes its result. When this returns, every
    /// subscription of this client that the mutation changed has received its new value.
    ///
    /// - Throws: ``TinyvexError``.
    public func mutation<T: Decodable>(_ name: String, args: any Encodable, as type: T.Type) async throws -> T {
        let requestID = UUID().uuidString
        let params: JSONObject = [
            "requestId": .string(requestID), "clientId": .string(clientID), "name": .string(name), "args": try Self.encode(args),
        ]
        return try await call(TinyvexMethod.mutation, params: params, idempotent: true, as: type)
    }

    /// Runs the action `name` with `args` and decodes its result.
    ///
    /// - Parameter idempotent: Whether the action may be sent again when the connection drops
    ///   while it runs; otherwise that fails with ``TinyvexError/transport(_:)``.
    /// - Throws: ``TinyvexError``.
    public func action<T: Decodable>(_ name: String, args: any Encodable, as type: T.Type, idempotent: Bool = false) async throws -> T {
        let params: JSONObject = ["requestId": .string(UUID().uuidString), "name": .string(name), "args": try Self.encode(args)]
        return try await call(TinyvexMethod.action, params: params, idempotent: idempotent, as: type)
    }

    /// Sets (or with `nil` clears) the token the server's auth hook checks; it is sent now when
    /// connected and again after every reconnect. A refused token shows in the calls that need
    /// an identity, which fail with `TVX006`.
    public func setAuthToken(_ token: String?) {
        let connected = channel.connection.state.isConnected
        let channel = self.channel
        lifecycle.withLock { state in
            state.token = token
            guard connected, !state.closed else { return }
            let previous = state.tokenSend
            state.tokenSend = Task {
                await previous?.value
                _ = try? await channel.request(TinyvexMethod.setToken, params: .named(["token": token.map(JSONValue.string) ?? .null]))
            }
        }
    }

    /// Waits for a token change in flight, so the next request runs with it.
    private func tokenSent() async {
        await lifecycle.withLock { $0.tokenSend }?.value
    }

    private func call<T: Decodable>(_ method: String, params: JSONObject, idempotent: Bool, as type: T.Type) async throws -> T {
        if case .failure(let error) = await start() { throw error }
        await tokenSent()
        var resends = 0
        let result: JSONValue
        while true {
            // Never overtake the resubscriptions of a new connection.
            await gate.wait()
            do {
                result = try await channel.request(method, params: .named(params))
                break
            } catch {
                let lost = error.code == .connectionLost || error.code == .notConnected
                guard idempotent, lost, resends < configuration.maxMutationResends else {
                    throw Self.tinyvexError(error)
                }
                // Sent again with the same requestId: the server applies a mutation once.
                resends += 1
            }
        }
        do {
            return try JSONValueDecoder().decode(T.self, from: result["value"] ?? .null)
        } catch {
            throw TinyvexError.decoding("\(error)")
        }
    }

    /// Opens the connection, or starts it again when reconnecting gave up; returns once it is
    /// connected. Concurrent callers share one attempt; once it is over the next caller makes a
    /// new one (which returns at once while connected), so a client whose reconnecting gave up
    /// connects again on its next subscription or call instead of waiting forever.
    private func start() async -> Result<Void, TinyvexError> {
        let task = lifecycle.withLock { state -> Task<Result<Void, TinyvexError>, Never>? in
            guard !state.closed else { return nil }
            if let starting = state.starting { return starting }
            let channel = self.channel
            let starting = Task { () -> Result<Void, TinyvexError> in
                do {
                    // Race-free in the connection: connected returns at once, reconnecting waits
                    // for the link (and fails if it gives up), given up or idle starts it.
                    try await channel.connection.start()
                    return .success(())
                } catch {
                    return .failure(.transport(RpcFailure(error)))
                }
            }
            state.starting = starting
            return starting
        }
        guard let task else { return .failure(.transport(ManagedConnectionError(.closed, "the client was closed").rpcFailure)) }
        let outcome = await task.value
        lifecycle.withLock { state in
            if state.starting == task { state.starting = nil }
        }
        return outcome
    }

    // MARK: Helpers

    private static func notify(_ registry: SubscriptionRegistry, _ method: String, _ params: JSONRPCParams?) {
        guard case .named(let members)? = params, case .string(let subID)? = members["subId"] else { return }
        switch method {
        case TinyvexMethod.data:
            guard let seq = members["seq"]?.int64Value else { return }
            registry.receive(subID: subID, seq: seq, value: members["value"] ?? .null)
        case TinyvexMethod.transitionChunk:
            guard let seq = members["seq"]?.int64Value, let transitionID = members["transitionId"]?.stringValue,
                let part = members["part"]?.intValue, let total = members["total"]?.intValue,
                let chunk = members["chunk"]?.stringValue
            else { return }
            registry.receiveChunk(subID: subID, seq: seq, transitionID: transitionID, part: part, total: total, chunk: chunk)
        case TinyvexMethod.error:
            let code = members["code"]?.stringValue ?? ""
            // TVX004 (a fresh value follows, and this subscription's seqs start again from it)
            // and TVX005 (newer values replaced older ones) are notices; anything else ends the
            // subscription.
            if code == TinyvexErrorCode.resumeFailed.rawValue {
                registry.restartSeq(subID: subID)
                return
            }
            guard code != TinyvexErrorCode.backpressureDrop.rawValue else { return }
            registry.fail(subID: subID, .server(code: code, message: members["message"]?.stringValue ?? "", data: members["data"]))
        default:
            return
        }
    }

    /// The dedupe key (name and params encoded with sorted keys and unescaped slashes) and the
    /// params as a JSON value.
    private static func canonical(_ name: String, _ params: any Encodable) throws(TinyvexError) -> (key: String, params: JSONValue) {
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

    private static func tinyvexError(_ error: ManagedConnectionError) -> TinyvexError {
        guard error.code == .remote, let remote = error.remote else {
            return .transport(error.rpcFailure)
        }
        if let code = remote.data?["code"]?.stringValue {
            return .server(code: code, message: remote.message, data: remote.data?["details"])
        }
        return .server(code: String(remote.code), message: remote.message, data: remote.data)
    }
}

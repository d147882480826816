import Foundation
import RpcDo
import RpcTransport
import RpcWire
import Synchronization
import TinyvexProtocol

/// What a ``TinyvexClient`` knows and does on each link, apart from its public API: the live
/// queries (``SubscriptionRegistry``, the shell of the pure ``SubscriptionTable``), the token
/// and the ready link (the pure ``TokenState``), and the protocol's steps on a link (the ready
/// handshake, the first subscribe of a query, unsubscribing, setting the token, reading
/// notifications). It is the thin shell of those two state machines: it performs what they
/// return. The connection's hooks hold it; it holds no connection, only the links it is given.
final class TinyvexClientCore: Sendable {
    /// This client's id, random per instance and kept across reconnects: the server keeps the
    /// results of its mutations under it, so a resend after a reconnect is answered once and no
    /// other client's `requestId` can meet them.
    let clientID = UUID().uuidString
    /// The live queries.
    let registry = SubscriptionRegistry()
    private let tokens = Mutex(TokenState<ReconnectingConnection.Link>())
    private let subscribeRequests = Atomic<Int>(0)
    /// Whether `tinyvex/connect` asks for transitions.
    private let transitions: Bool

    /// A core that asks for transitions unless `transitions` is `false`.
    init(transitions: Bool = true) {
        self.transitions = transitions
    }

    /// How many `tinyvex/subscribe` requests were sent (first ones and resumes).
    var subscribeRequestCount: Int { subscribeRequests.load(ordering: .relaxed) }

    /// Whether the client was closed.
    var isClosed: Bool { tokens.withLock { $0.closed } }

    /// Marks the client closed: nothing more is sent on its links.
    func close() {
        tokens.withLock { $0.close() }
    }

    // MARK: Links

    /// The ready handshake of a new link: `tinyvex/connect` with the client's id and token (a
    /// refused token is no reason to drop the link: calls that need an identity fail with
    /// `TVX006`), the token again if it changed meanwhile, then every live query not yet sent
    /// on this link resubscribed with its
    /// `lastSeq`, sent on the link directly; it returns once all are answered, when the values
    /// they brought are shown together (a token provider is asked first, and again when
    /// `connect` refuses its token).
    ///
    /// - Throws: The connection's error when the link fails or a step times out.
    func handshake(_ channel: JSONRPCChannel, on link: ReconnectingConnection.Link, timeout: Duration) async throws {
        if let fetch = tokens.withLock({ $0.handshakeFetch() }) {
            // Tokens come from a provider: a fresh one for every connection.
            await fetched(fetch, channel)
        }
        // Transitions: the server sends what a commit changes in this client's queries as one
        // message, applied at once.
        var members: JSONObject = ["clientId": .string(clientID), "features": ["transitions": .bool(transitions)]]
        let token = tokens.withLock { $0.handshakeBegan(generation: link.generation) }
        if let token { members.updateValue(.string(token), forKey: "token") }
        do {
            _ = try await channel.request(on: link, TinyvexMethod.connect, params: .named(members), timeout: timeout)
        } catch {
            // An error answer still shows that the link works.
            guard error.code == .remote else { throw error }
            if error.remote?.data?["code"]?.stringValue == TinyvexErrorCode.unauthorized.rawValue,
                let fetch = tokens.withLock({ $0.refused(generation: link.generation) })
            {
                // The token was refused or has expired: the provider is asked for a new one,
                // which the step below writes before the resubscriptions.
                await fetched(fetch, channel)
            }
        }
        // A token set while `connect` was on its way is written before the resubscriptions
        // (the server handles them in order), so queries that need an identity run with it.
        try tokens.withLock { state throws(ManagedConnectionError) in
            guard let write = state.handshakeConnected(on: link) else { return }
            try Self.write(write, channel)
        }
        // The values the resubscriptions bring are shown together once all are answered, so
        // the queries go from the state before the reconnect to the one after it in one step.
        registry.pause()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for upstream in registry.claimAll(generation: link.generation) {
                    group.addTask { try await self.subscribe(upstream, channel, on: link, timeout: timeout) }
                }
                try await group.waitForAll()
            }
        } catch {
            registry.discardPaused()
            throw error
        }
        registry.resume()
    }

    /// A link is ready: unsubscribes and token changes go to it from now on, and a token set
    /// while its handshake ran is written now, before any waiting call.
    func ready(_ channel: JSONRPCChannel, link: ReconnectingConnection.Link) {
        tokens.withLock { state in
            // Its answer is not awaited: the server handles the link's requests in order, so
            // every later request runs with the token.
            if let write = state.ready(link) { try? Self.write(write, channel) }
        }
    }

    /// The link of `generation` is gone.
    func lost(generation: UInt64) {
        tokens.withLock { $0.lost(generation: generation) }
    }

    /// Sends the first `tinyvex/subscribe` of the upstream `subID` on `link` unless that link's
    /// handshake already resubscribed it.
    ///
    /// - Throws: The connection's error (lost, timed out), which leaves the query to the next
    ///   link's handshake.
    func subscribeFirst(subID: String, _ channel: JSONRPCChannel, on link: ReconnectingConnection.Link, timeout: Duration) async throws {
        guard let upstream = registry.claim(subID: subID, generation: link.generation) else { return }
        try await subscribe(upstream, channel, on: link, timeout: timeout)
    }

    /// Sends `tinyvex/subscribe` for `upstream` on `link` and waits for the answer; a server
    /// error ends the subscription.
    private func subscribe(
        _ upstream: SubscriptionRegistry.Upstream, _ channel: JSONRPCChannel, on link: ReconnectingConnection.Link, timeout: Duration
    ) async throws(ManagedConnectionError) {
        var members: JSONObject = ["subId": .string(upstream.subID), "name": .string(upstream.name), "params": upstream.params]
        if let lastSeq = upstream.lastSeq { members.updateValue(.integer(lastSeq), forKey: "lastSeq") }
        subscribeRequests.add(1, ordering: .relaxed)
        do {
            _ = try await channel.request(on: link, TinyvexMethod.subscribe, params: .named(members), timeout: timeout)
        } catch {
            guard error.code == .remote else { throw error }
            registry.fail(subID: upstream.subID, TinyvexClient.tinyvexError(error))
        }
    }

    /// Writes `tinyvex/unsubscribe` for `subID` on the ready link now, in order with everything
    /// else; offline, the next link's handshake simply does not resubscribe it.
    func unsubscribe(subID: String, _ channel: JSONRPCChannel) {
        tokens.withLock { state in
            guard let link = state.unsubscribeLink else { return }
            // TVX001 (already gone) leaves nothing to undo; its answer is not awaited.
            try? channel.send(on: link, TinyvexMethod.unsubscribe, params: .named(["subId": .string(subID)]))
        }
    }

    /// Sets the token: written at once on the ready link, sent by every later handshake.
    func setToken(_ token: String?, _ channel: JSONRPCChannel) {
        tokens.withLock { state in
            if let write = state.setToken(token) { try? Self.write(write, channel) }
        }
    }

    /// Tokens come from `provider` from now on; the fetch to make now, when a link is ready.
    func setTokenProvider(_ provider: @escaping TokenState<ReconnectingConnection.Link>.Provider) -> TokenState<ReconnectingConnection.Link>.Fetch? {
        tokens.withLock { $0.setProvider(provider) }
    }

    /// Calls the provider as `fetch` says and takes its token (unless another token or provider
    /// was set meanwhile), writing it on the ready link when there is one.
    func fetched(_ fetch: TokenState<ReconnectingConnection.Link>.Fetch, _ channel: JSONRPCChannel) async {
        let token = await fetch.provider(fetch.forceRefresh)
        tokens.withLock { state in
            if let write = state.fetched(token, epoch: fetch.epoch) { try? Self.write(write, channel) }
        }
    }

    /// Calls the provider for the ready link and sends its token as a request, so that a
    /// refusal is seen: then the provider is asked once more with `forceRefresh` (once per
    /// link). When the token changed while the request was on its way, the newest one is
    /// written again after it, so the server ends with the newest token.
    func fetchForReadyLink(_ fetch: TokenState<ReconnectingConnection.Link>.Fetch, _ channel: JSONRPCChannel, timeout: Duration) async {
        var next: TokenState<ReconnectingConnection.Link>.Fetch? = fetch
        while let fetch = next {
            next = nil
            let token = await fetch.provider(fetch.forceRefresh)
            let taken = tokens.withLock { state in
                state.fetched(token, epoch: fetch.epoch).map { (write: $0, version: state.tokenVersion) }
            }
            guard let taken else { return }
            let params: JSONObject = ["token": taken.write.token.map(JSONValue.string) ?? .null]
            var refused = false
            do {
                _ = try await channel.request(on: taken.write.link, TinyvexMethod.setToken, params: .named(params), timeout: timeout)
            } catch {
                refused = error.code == .remote && error.remote?.data?["code"]?.stringValue == TinyvexErrorCode.unauthorized.rawValue
            }
            next = tokens.withLock { state in
                guard state.tokenVersion == taken.version else {
                    if !state.closed, let link = state.readyLink {
                        try? Self.write(TokenState.Write(link: link, token: state.token), channel)
                    }
                    return nil
                }
                return refused ? state.refused(generation: taken.write.link.generation) : nil
            }
        }
    }

    /// Writes a `tinyvex/setToken` the token state asked for (under its lock, so that writes
    /// leave in the order the token changed).
    private static func write(_ write: TokenState<ReconnectingConnection.Link>.Write, _ channel: JSONRPCChannel) throws(ManagedConnectionError) {
        try channel.send(on: write.link, TinyvexMethod.setToken, params: .named(["token": write.token.map(JSONValue.string) ?? .null]))
    }

    // MARK: Notifications

    /// A notification from the server: a transition, a value, a piece of one, or a
    /// subscription's error.
    func notify(_ method: String, _ params: JSONRPCParams?) {
        guard case .named(let members)? = params else { return }
        if method == TinyvexMethod.transition {
            registry.receiveTransition(members)
            return
        }
        guard case .string(let subID)? = members["subId"] else {
            // A piece of a whole transition.
            guard method == TinyvexMethod.transitionChunk, let transitionID = members["transitionId"]?.stringValue,
                let part = members["part"]?.intValue, let total = members["total"]?.intValue, let chunk = members["chunk"]?.stringValue
            else { return }
            registry.receiveTransitionChunk(transitionID: transitionID, part: part, total: total, chunk: chunk)
            return
        }
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
}

import Foundation
import RpcDo
import RpcTransport
import RpcWire
import Synchronization
import TinyvexProtocol

/// What a ``TinyvexClient`` knows and does on each link, apart from its public API: the live
/// queries (``SubscriptionRegistry``), the token, the ready link, and the protocol's steps on a
/// link (the ready handshake, the first subscribe of a query, unsubscribing, setting the
/// token, reading notifications). The connection's hooks hold it; it holds no connection, only
/// the links it is given.
final class TinyvexClientCore: Sendable {
    /// The client's token and link, under one lock so that a token change and a new link
    /// never miss each other.
    private struct Session {
        var token: String?
        /// Bumped by every token change.
        var tokenVersion: UInt64 = 0
        /// The token version the newest handshake sent, with its link's generation.
        var handshakeToken: (generation: UInt64, version: UInt64)?
        /// The ready link, if any.
        var readyLink: ReconnectingConnection.Link?
        var closed = false
    }

    /// This client's id, random per instance and kept across reconnects: the server keeps the
    /// results of its mutations under it, so a resend after a reconnect is answered once and no
    /// other client's `requestId` can meet them.
    let clientID = UUID().uuidString
    /// The live queries.
    let registry = SubscriptionRegistry()
    private let session = Mutex(Session())
    private let subscribeRequests = Atomic<Int>(0)

    /// How many `tinyvex/subscribe` requests were sent (first ones and resumes).
    var subscribeRequestCount: Int { subscribeRequests.load(ordering: .relaxed) }

    /// Whether the client was closed.
    var isClosed: Bool { session.withLock { $0.closed } }

    /// Marks the client closed: nothing more is sent on its links.
    func close() {
        session.withLock { $0.closed = true }
    }

    // MARK: Links

    /// The ready handshake of a new link: `tinyvex/connect` with the client's id and token (a
    /// refused token is no reason to drop the link: calls that need an identity fail with
    /// `TVX006`), the token again if it changed meanwhile, then every live query not yet sent
    /// on this link resubscribed with its
    /// `lastSeq`, sent on the link directly; it returns once all are answered.
    ///
    /// - Throws: The connection's error when the link fails or a step times out.
    func handshake(_ channel: JSONRPCChannel, on link: ReconnectingConnection.Link, timeout: Duration) async throws {
        var members: JSONObject = ["clientId": .string(clientID)]
        let token = session.withLock { state in
            state.handshakeToken = (link.generation, state.tokenVersion)
            return state.token
        }
        if let token { members.updateValue(.string(token), forKey: "token") }
        do {
            _ = try await channel.request(on: link, TinyvexMethod.connect, params: .named(members), timeout: timeout)
        } catch {
            // An error answer still shows that the link works.
            guard error.code == .remote else { throw error }
        }
        // A token set while `connect` was on its way is written before the resubscriptions
        // (the server handles them in order), so queries that need an identity run with it.
        let changed = session.withLock { state -> (Bool, String?) in
            guard let sent = state.handshakeToken, sent.generation == link.generation, sent.version != state.tokenVersion else {
                return (false, nil)
            }
            state.handshakeToken = (link.generation, state.tokenVersion)
            return (true, state.token)
        }
        if changed.0 {
            try channel.send(on: link, TinyvexMethod.setToken, params: .named(["token": changed.1.map(JSONValue.string) ?? .null]))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for upstream in registry.claimAll(generation: link.generation) {
                group.addTask { try await self.subscribe(upstream, channel, on: link, timeout: timeout) }
            }
            try await group.waitForAll()
        }
    }

    /// A link is ready: unsubscribes and token changes go to it from now on, and a token set
    /// while its handshake ran is written now, before any waiting call.
    func ready(_ channel: JSONRPCChannel, link: ReconnectingConnection.Link) {
        session.withLock { state in
            state.readyLink = link
            if let sent = state.handshakeToken, sent.generation == link.generation, sent.version == state.tokenVersion { return }
            Self.sendToken(state.token, channel, on: link)
        }
    }

    /// The link of `generation` is gone.
    func lost(generation: UInt64) {
        session.withLock { state in
            if state.readyLink?.generation == generation { state.readyLink = nil }
        }
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
        session.withLock { state in
            guard !state.closed, let link = state.readyLink else { return }
            // TVX001 (already gone) leaves nothing to undo; its answer is not awaited.
            try? channel.send(on: link, TinyvexMethod.unsubscribe, params: .named(["subId": .string(subID)]))
        }
    }

    /// Sets the token: written at once on the ready link, sent by every later handshake.
    func setToken(_ token: String?, _ channel: JSONRPCChannel) {
        session.withLock { state in
            state.token = token
            state.tokenVersion += 1
            guard !state.closed, let link = state.readyLink else { return }
            Self.sendToken(token, channel, on: link)
        }
    }

    private static func sendToken(_ token: String?, _ channel: JSONRPCChannel, on link: ReconnectingConnection.Link) {
        // Its answer is not awaited: the server handles the link's requests in order, so every
        // later request runs with the token.
        try? channel.send(on: link, TinyvexMethod.setToken, params: .named(["token": token.map(JSONValue.string) ?? .null]))
    }

    // MARK: Notifications

    /// A notification from the server: a value, a piece of one, or a subscription's error.
    func notify(_ method: String, _ params: JSONRPCParams?) {
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
}

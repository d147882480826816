public import CapnWebCore
public import RpcTransport
import Synchronization
public import Testing
import RpcTesting

/// The peers a test opened, registered as it opens them, with what each one's tables must
/// settle at. ``withCheckedPeers(expecting:timeout:sourceLocation:isolation:_:)`` checks and
/// closes every one of them once the test's body has run, whether it returned or threw.
///
/// A peer is either one session or a group of sessions read together (a server's live
/// sessions, which come and go with its connections).
public final class CheckedPeers: Sendable {
    /// One registered peer.
    private struct Peer: Sendable {
        /// How the failure message names it: `client`, `server`, `client 2`.
        let name: String
        /// Whether it serves (checked against ``SettledTables/server``) or calls.
        let serves: Bool
        /// What each of its sessions must settle at.
        let expected: RpcStats
        /// The table sizes of its sessions now.
        let stats: @Sendable () -> [RpcStats]
        /// Ends it; harmless when it has ended already.
        let close: @Sendable () async -> Void
        /// The session it is, to register a session once; `nil` for a group.
        let identity: ObjectIdentifier?
    }

    private let peers = Mutex<[Peer]>([])
    /// The expectations peers are registered with unless they name their own.
    public let expected: SettledTables

    init(expected: SettledTables) {
        self.expected = expected
    }

    /// Registers a client session: checked against ``SettledTables/client`` (or `expecting`),
    /// then closed, unless `closing` is `false` (a session the test goes on using after the
    /// harness ends, as across a server's restart).
    public func client<API>(_ session: RpcSession<API>, expecting: RpcStats? = nil, closing: Bool = true) {
        register(
            name: "client", serves: false, expected: expecting ?? expected.client,
            identity: ObjectIdentifier(session), stats: { [session.getStats()] }
        ) {
            if closing { await session.close() }
        }
    }

    /// Registers a server session: checked against ``SettledTables/server``, then closed.
    public func server<API>(_ session: RpcSession<API>, expecting: RpcStats? = nil) {
        register(
            name: "server", serves: true, expected: expecting ?? expected.server,
            identity: ObjectIdentifier(session), stats: { [session.getStats()] }
        ) {
            await session.close()
        }
    }

    /// Starts a session serving `main` on `transport` and registers it as a server.
    public func startServer(
        transport: any MessageTransport, main: (any RpcTarget)? = nil,
        configuration: Configuration = Configuration(), expecting: RpcStats? = nil
    ) -> RpcSession<Any> {
        let session = RpcSession<Any>.start(transport: transport, main: main, configuration: configuration)
        server(session, expecting: expecting)
        return session
    }

    /// Starts a session on `transport` and registers it as a client.
    public func startClient(
        transport: any MessageTransport, main: (any RpcTarget)? = nil,
        configuration: Configuration = Configuration(), expecting: RpcStats? = nil
    ) -> RpcSession<Any> {
        let session = RpcSession<Any>.start(transport: transport, main: main, configuration: configuration)
        client(session, expecting: expecting)
        return session
    }

    /// Registers a group of server sessions read together (a server's live sessions), each
    /// checked against `expecting`; the group's owner closes them.
    public func servers(
        _ name: String, expecting: RpcStats, stats: @escaping @Sendable () -> [RpcStats]
    ) {
        register(name: name, serves: true, expected: expecting, identity: nil, stats: stats, close: {})
    }

    /// Registers `session` as a client unless it is registered, then waits until every peer's
    /// tables settle and records an issue for each that does not: the check of the end of the
    /// test, made in its middle, for a test that goes on to close a session itself.
    ///
    /// - Parameters:
    ///   - session: A client session, registered as ``client(_:expecting:closing:)`` does.
    ///   - now: What the tables must read now, when it is not what they must end at.
    ///   - closing: Whether the harness closes `session` at the end.
    public func expectSettled<API>(
        _ session: RpcSession<API>, now: SettledTables? = nil, closing: Bool = true,
        timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        client(session, closing: closing)
        await checkSettled(now: now, timeout: timeout, sourceLocation: sourceLocation)
    }

    /// Waits until every registered peer's tables settle and records an issue for each that does
    /// not, in the middle of a test.
    public func expectSettled(timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation) async {
        await checkSettled(now: nil, timeout: timeout, sourceLocation: sourceLocation)
    }

    private func register(
        name: String, serves: Bool, expected: RpcStats, identity: ObjectIdentifier?,
        stats: @escaping @Sendable () -> [RpcStats], close: @escaping @Sendable () async -> Void
    ) {
        peers.withLock { peers in
            if let identity, peers.contains(where: { $0.identity == identity }) { return }
            let sameName = peers.filter { $0.name == name || $0.name.hasPrefix(name + " ") }.count
            let unique = sameName == 0 ? name : "\(name) \(sameName + 1)"
            peers.append(
                Peer(name: unique, serves: serves, expected: expected, stats: stats, close: close, identity: identity))
        }
    }

    /// How many peers are registered.
    var count: Int { peers.withLock { $0.count } }

    /// Waits until every peer's tables read what it expects (or what `now` says for its side),
    /// or `timeout` passes, then records an issue for each peer that does not.
    func checkSettled(now: SettledTables?, timeout: Duration, sourceLocation: SourceLocation) async {
        let peers = self.peers.withLock { $0 }
        func expected(_ peer: Peer) -> RpcStats {
            guard let now else { return peer.expected }
            return peer.serves ? now.server : now.client
        }
        let settled = { peers.allSatisfy { peer in peer.stats().allSatisfy { $0 == expected(peer) } } }
        _ = await waitUntil(timeout: timeout) { settled() }
        for peer in peers {
            for stats in peer.stats() where stats != expected(peer) {
                Issue.record(
                    "the \(peer.name)'s tables are \(stats), expected \(expected(peer))", sourceLocation: sourceLocation)
            }
        }
    }

    /// Closes every peer, the last registered first.
    func closeAll() async {
        let peers = self.peers.withLock { $0 }
        for peer in peers.reversed() { await peer.close() }
    }
}

/// Runs `body` with a registry of the peers it opens, then, always (when `body` throws too):
/// waits until every registered peer's tables settle at what it expects (by default
/// `{imports: 1, exports: 1}`) and records an issue for each that does not, closes every peer,
/// and returns what `body` returned or rethrows what it threw.
///
/// Both test settings build on it: ``withSessionPair(server:client:serverConfiguration:clientConfiguration:transports:expecting:timeout:sourceLocation:isolation:_:)``
/// and ``withSocketPeers(port:admit:tls:deflate:serverConfiguration:main:expecting:sourceLocation:isolation:_:)``.
///
/// - Parameters:
///   - expected: What the peers' tables must settle at.
///   - timeout: How long the tables may take to settle (releases travel asynchronously).
///   - sourceLocation: Where issues are reported: the test's call of the harness.
///   - body: The test; it registers each peer it opens.
public func withCheckedPeers<T>(
    expecting expected: SettledTables = .clean,
    timeout: Duration = .seconds(10),
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (CheckedPeers) async throws -> T
) async throws -> T {
    let peers = CheckedPeers(expected: expected)
    let outcome: Result<T, any Error>
    do {
        outcome = .success(try await body(peers))
    } catch {
        outcome = .failure(error)
    }
    if peers.count == 0 {
        Issue.record("the test registered no peer whose tables to check", sourceLocation: sourceLocation)
    }
    await peers.checkSettled(now: nil, timeout: timeout, sourceLocation: sourceLocation)
    await peers.closeAll()
    return try outcome.get()
}

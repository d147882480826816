public import CapnWebCore
public import RpcTransport
import RpcTransportTesting
public import Testing

/// A client session and a server session joined by an in-memory transport pair, as
/// ``withSessionPair(server:client:serverConfiguration:clientConfiguration:transports:expecting:timeout:sourceLocation:isolation:_:)``
/// opens them.
public struct SessionPair: Sendable {
    /// The session that calls: its `api` is the server's main object.
    public let client: RpcSession<Any>
    /// The session that serves.
    public let server: RpcSession<Any>
}

/// Opens a server session serving `server` and a client session on an in-memory transport pair,
/// runs `body` with them, then, always (when `body` throws too), waits until both peers' tables
/// settle at `expected` (by default `{imports: 1, exports: 1}`, everything released), records
/// an issue for a peer that does not, closes both sessions and rethrows what `body` threw.
///
/// ```swift
/// try await withSessionPair(server: Calculator()) { pair in
///     let n: Int = try await pair.client.api.square(5)
///     #expect(n == 25)
/// }
/// ```
///
/// - Parameters:
///   - server: The server's main object, if any.
///   - client: The client's main object, if any (for calls the server makes back).
///   - serverConfiguration: The server session's configuration.
///   - clientConfiguration: The client session's configuration.
///   - transports: The client's and the server's ends; a fresh in-memory pair when `nil`.
///   - expected: What the tables must settle at; a test that deliberately ends elsewhere says so.
///   - timeout: How long the tables may take to settle.
///   - sourceLocation: Where issues are reported.
///   - body: The test.
public func withSessionPair<T>(
    server: (any RpcTarget)? = nil,
    client: (any RpcTarget)? = nil,
    serverConfiguration: Configuration = Configuration(),
    clientConfiguration: Configuration = Configuration(),
    transports: (client: any MessageTransport, server: any MessageTransport)? = nil,
    expecting expected: SettledTables = .clean,
    timeout: Duration = .seconds(10),
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (SessionPair) async throws -> T
) async throws -> T {
    let ends: (client: any MessageTransport, server: any MessageTransport)
    if let transports {
        ends = transports
    } else {
        let (clientEnd, serverEnd) = InMemoryTransport.makePair()
        ends = (clientEnd, serverEnd)
    }
    return try await withCheckedPeers(expecting: expected, timeout: timeout, sourceLocation: sourceLocation) { peers in
        let serverSession = peers.startServer(transport: ends.server, main: server, configuration: serverConfiguration)
        let clientSession = peers.startClient(transport: ends.client, main: client, configuration: clientConfiguration)
        return try await body(SessionPair(client: clientSession, server: serverSession))
    }
}

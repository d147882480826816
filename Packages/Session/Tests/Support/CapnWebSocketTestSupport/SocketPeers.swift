#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import CapnWeb
public import CapnWebTestSupport
public import RpcTransportNIO
public import Testing

/// A Cap'n Web server listening on loopback and the client sessions a test opens to it, as
/// ``withSocketPeers(port:admit:tls:deflate:serverConfiguration:main:expecting:sourceLocation:isolation:_:)``
/// runs them. Every session opened through ``connect(as:to:configure:)`` (and every session the
/// server runs) is checked and closed by the harness once the test's body has run.
public struct SocketPeers: Sendable {
    /// The running server.
    public let server: RpcServer
    /// The registry the harness checks.
    public let peers: CheckedPeers

    /// The server's WebSocket URL.
    public var url: URL { server.webSocketURL }

    /// Opens a client session to the server (or to `url`), typed as `api`, and registers it
    /// with the harness, which checks its tables and closes it at the end of the test.
    public func connect<API>(
        as api: API.Type = Any.self,
        to url: URL? = nil,
        configure: ((inout Configuration) -> Void)? = nil,
        expecting: RpcStats? = nil
    ) async throws -> RpcSession<API> {
        var configuration = Configuration()
        configure?(&configuration)
        let session = try await RpcSession<API>.connect(to: url ?? server.webSocketURL, configuration: configuration)
        peers.client(session, expecting: expecting)
        return session
    }

    /// Registers a client session the test opened some other way; the harness closes it at the
    /// end unless `closing` is `false`.
    public func track<API>(_ session: RpcSession<API>, expecting: RpcStats? = nil, closing: Bool = true) {
        peers.client(session, expecting: expecting, closing: closing)
    }

    /// Registers `session` unless it is registered, then waits until every client's and server
    /// session's tables settle and records an issue for each that does not: the check of the
    /// end of the test, made before the test closes a session itself.
    /// `now` is what the tables must read now when it is not what they must end at; the harness
    /// closes `session` at the end unless `closing` is `false`.
    public func expectSettled<API>(
        _ session: RpcSession<API>, now: SettledTables? = nil, closing: Bool = true,
        timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await peers.expectSettled(
            session, now: now, closing: closing, timeout: timeout, sourceLocation: sourceLocation)
    }

    /// Waits until every registered client's and every server session's tables settle and
    /// records an issue for each that does not, in the middle of a test.
    public func expectSettled(timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation) async {
        await peers.expectSettled(timeout: timeout, sourceLocation: sourceLocation)
    }
}

/// Runs a server on loopback whose connections are served by `main`, runs `body` with it, then,
/// always (when `body` throws too), waits until the tables of every client session `body`
/// opened through ``SocketPeers/connect(as:to:configure:expecting:)`` and of every live server
/// session settle at `expected` (by default `{imports: 1, exports: 1}`), records an issue for
/// each that does not, closes the clients, stops the server and rethrows what `body` threw.
///
/// ```swift
/// try await withSocketPeers(main: { _ in Calculator() }) { peers in
///     let session = try await peers.connect()
///     let n: Int = try await session.api.square(5)
///     #expect(n == 25)
/// }
/// ```
///
/// - Parameters:
///   - port: The port to listen on; 0 picks a free one.
///   - admit: Decides about each connection before its session starts; `nil` admits all.
///   - tls: The server's TLS settings; `nil` for plaintext.
///   - deflate: The server's permessage-deflate settings.
///   - serverConfiguration: The server sessions' configuration.
///   - main: Makes the main object of each connection.
///   - expected: What the tables must settle at; a test that deliberately ends elsewhere says so.
///   - sourceLocation: Where issues are reported.
///   - body: The test.
public func withSocketPeers<T>(
    port: Int = 0,
    admit: (@Sendable (RpcConnectionInfo) async -> RpcAdmission)? = nil,
    tls: TLSServerConfiguration? = nil,
    deflate: PerMessageDeflateConfiguration? = .default,
    serverConfiguration: Configuration = Configuration(),
    main: @escaping @Sendable (RpcConnectionInfo) -> any RpcTarget,
    expecting expected: SettledTables = .clean,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (SocketPeers) async throws -> T
) async throws -> T {
    try await withRpcServer(
        port: port, tls: tls, deflate: deflate, configuration: serverConfiguration, admit: admit, main: main
    ) { server in
        try await withCheckedPeers(expecting: expected, sourceLocation: sourceLocation) { peers in
            peers.servers("server", expecting: expected.server) { server.sessions.map { $0.getStats() } }
            return try await body(SocketPeers(server: server, peers: peers))
        }
    }
}

/// Like ``withSocketPeers(port:admit:tls:deflate:serverConfiguration:main:expecting:sourceLocation:isolation:_:)``
/// with one client session, typed as `api` and opened before `body` runs.
///
/// ```swift
/// try await withSocketSession(as: Any.self, main: { _ in Calculator() }) { session, server in
///     let n: Int = try await session.api.square(5)
/// }
/// ```
public func withSocketSession<API, T>(
    as api: API.Type,
    main: @escaping @Sendable (RpcConnectionInfo) -> any RpcTarget,
    tls: TLSServerConfiguration? = nil,
    deflate: PerMessageDeflateConfiguration? = .default,
    serverConfiguration: Configuration = Configuration(),
    configure: ((inout Configuration) -> Void)? = nil,
    expecting expected: SettledTables = .clean,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (RpcSession<API>, RpcServer) async throws -> T
) async throws -> T {
    try await withSocketPeers(
        tls: tls, deflate: deflate, serverConfiguration: serverConfiguration, main: main, expecting: expected,
        sourceLocation: sourceLocation
    ) { peers in
        let session = try await peers.connect(as: api, configure: configure)
        return try await body(session, peers.server)
    }
}

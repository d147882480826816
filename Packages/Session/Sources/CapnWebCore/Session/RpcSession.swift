public import RpcTransport

/// A Cap'n Web session: the peer's main object as `api`, and this side's main object (if
/// any) served to the peer.
///
/// ```swift
/// try await withRpcSession(to: url) { session in
///     let n: Int = try await session.api.square(5)
/// }
/// ```
///
/// Both sides of a connection are sessions; a server's session has the client's main object
/// (usually none) as its `api`.
public actor RpcSession<API> {
    nonisolated let connection: SessionConnection

    /// The peer's main object. Calls on it go to the current connection.
    ///
    /// Disfavoured so that where a typed view of the same name applies (a session typed by an
    /// `@RpcProtocol` stub), that view is chosen.
    @_disfavoredOverload
    public nonisolated let api: Ref<API>

    init(connection: SessionConnection) {
        self.connection = connection
        self.api = Ref<API>(stub: RpcStub(hook: SessionMainHook(connection: connection)))
    }

    /// Starts a session on a transport that is already open (an in-memory pair, an accepted
    /// WebSocket, or a custom transport).
    ///
    /// - Parameters:
    ///   - transport: The open transport.
    ///   - main: The object to serve to the peer as its `api`, if any.
    ///   - configuration: Timeouts and limits.
    public static func start(
        transport: any MessageTransport,
        main: (any RpcTarget)? = nil,
        configuration: Configuration = Configuration()
    ) -> RpcSession<API> {
        let connection = SessionConnection(configuration: configuration, makeMain: { main })
        connection.attach(transport)
        return RpcSession(connection: connection)
    }

    /// Drops the current connection and opens a new one to the same peer; calls made on refs of
    /// the old connection fail with ``RpcError/connectionLost(_:)``, `api` works on the new
    /// one. A reconnect loop in progress is stopped first.
    ///
    /// - Throws: ``RpcError/connectionLost(_:)`` when the new connection cannot be opened or the
    ///   session is closed, with a `TransportError` of code
    ///   `TransportError.Code.invalidTarget` for a session started on a given
    ///   transport, which has no URL to reconnect to.
    public func reconnect() async throws(RpcError) {
        try await connection.reconnect()
    }

    /// Ends the session: pending calls fail with ``RpcError/connectionLost(_:)``, the peer's
    /// objects are released and the connection is closed.
    public func close() async {
        await connection.close()
    }

    /// Ends the session like ``close()``, but waits at most `limit` for the peer's half of the
    /// close handshake: a peer that does not answer the close has its connection cut then (at
    /// once for `.zero`), so that closing cannot outlast a deadline of the caller's.
    ///
    /// ```swift
    /// await session.close(within: .milliseconds(200))
    /// ```
    public func close(within limit: Duration) async {
        await connection.close(within: limit)
    }

    /// The sizes of the current connection's tables.
    ///
    /// After the connection has ended its tables hold only the main entries, so an ended
    /// session reads `{imports: 1, exports: 1}`.
    public nonisolated func getStats() -> RpcStats {
        guard let core = connection.currentCore() ?? connection.latestCore() else {
            return RpcStats(imports: 1, exports: 1)
        }
        let (imports, exports) = core.stats()
        return RpcStats(imports: imports, exports: exports)
    }

    /// Waits until every result the peer asked for has been sent.
    public nonisolated func drain() async {
        await connection.currentCore()?.drain()
    }

    /// The executor of the connection's event loop, where the session reads and writes its
    /// frames; `nil` for a transport without one (an in-memory pair).
    ///
    /// Awaiting calls from code that prefers this executor costs no hand-off between threads:
    /// each call is written, and its answer resumes the caller, on the connection's own thread.
    /// A session opened from a URL keeps the same executor across reconnects.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(session.executor) {
    ///     for id in ids { let user: User = try await session.api.getUser(id) }
    /// }
    /// ```
    ///
    /// Code running there shares the thread with the connection's I/O: move blocking or long
    /// computations off it (`withTaskExecutorPreference(globalConcurrentExecutor) { … }`).
    public nonisolated var executor: (any TaskExecutor)? {
        connection.executor
    }

    /// The connection's states, starting with the current one.
    public nonisolated var connectionStates: AsyncStream<ConnectionState> {
        connection.states()
    }

    /// Runs `handler` each time the connection drops.
    public nonisolated func onDisconnect(_ handler: @escaping @Sendable ((any Error)?) -> Void) {
        connection.onDisconnect(handler)
    }

    /// Runs `handler` each time a dropped connection is re-established.
    public nonisolated func onReconnect(_ handler: @escaping @Sendable () -> Void) {
        connection.onReconnect(handler)
    }
}

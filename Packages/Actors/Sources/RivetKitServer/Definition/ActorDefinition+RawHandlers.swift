import RivetKit

extension ActorDefinition {
    /// Answers raw HTTP requests: a client's `handle.fetch(path)`, sent to
    /// `/gateway/{actor}/request/{path}`. The handler sees the path after `/request` and the
    /// query without the gateway's `rvt-*` items, the method, headers and body, and returns the
    /// response as it is to be sent.
    ///
    /// Each request is a connection: `onBeforeConnect`, `createConnState` and `onConnect` run
    /// before the handler (their parameters from the `x-rivet-conn-params` header) and
    /// `onDisconnect` after it. The request keeps the actor awake and is bounded by
    /// `actionTimeout` (`actor.action_timed_out`, 408). A handler that throws answers 500 with
    /// the error's JSON (an ``ActorError`` as it is, anything else as
    /// `rivetkit.internal_error`). Without a handler, requests get 404 with an empty body.
    ///
    /// ```swift
    /// .onRequest { context, request in
    ///     guard request.method == "GET", request.path == "/count" else { return ActorResponse(status: 404) }
    ///     return try .json(["count": try context.state().count])
    /// }
    /// ```
    public func onRequest(
        _ body: @escaping @Sendable (ActorRawContext<State>, ActorRequest) async throws -> ActorResponse
    ) -> Self {
        var copy = self
        copy.rawHandlers.request = body
        return copy
    }

    /// Takes raw WebSockets: a client's `handle.webSocket(path)`, opened at
    /// `/gateway/{actor}/websocket/{path}` (the `rivet` subprotocol is selected). The handler
    /// gets the socket (``ActorWebSocket``, its upgrade request with the path as sent,
    /// `/websocket/…`) and may read its messages, send and close; the socket stays open after
    /// the handler returns, until either side closes it.
    ///
    /// Each socket is a connection for as long as it is open: `onBeforeConnect`,
    /// `createConnState` and `onConnect` run before the handler (parameters from the
    /// `rivet_conn_params.…` subprotocol), `onDisconnect` after the socket closed. A handler
    /// that throws closes the socket with 1011 and the reason `group.code`. Without a handler,
    /// the socket is accepted and its messages are ignored.
    public func onWebSocket(
        _ body: @escaping @Sendable (ActorRawContext<State>, ActorWebSocket) async throws -> Void
    ) -> Self {
        var copy = self
        copy.rawHandlers.webSocket = body
        return copy
    }

    func rawContext(connection: ActorConn, runtime: ActorRuntime, state: @escaping @Sendable () -> JSONValue)
        -> ActorRawContext<State>
    {
        ActorRawContext(connection: connection, runtime: runtime) { () throws(ActorError) -> State in
            try Self.decodeState(state())
        }
    }

    func handleRequest(
        _ request: ActorRequest, connection: ActorConn, runtime: ActorRuntime, state: @escaping @Sendable () -> JSONValue
    ) async throws(ActorError) -> ActorResponse? {
        guard let handler = rawHandlers.request else { return nil }
        do {
            return try await handler(rawContext(connection: connection, runtime: runtime, state: state), request)
        } catch {
            throw Self.clientError(error)
        }
    }

    func handleWebSocket(
        _ socket: ActorWebSocket, connection: ActorConn, runtime: ActorRuntime, state: @escaping @Sendable () -> JSONValue
    ) async throws(ActorError) {
        guard let handler = rawHandlers.webSocket else { return }
        do {
            try await handler(rawContext(connection: connection, runtime: runtime, state: state), socket)
        } catch {
            throw Self.clientError(error)
        }
    }
}

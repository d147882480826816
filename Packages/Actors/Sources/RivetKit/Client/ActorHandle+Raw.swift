public import NIOHTTP1
public import RpcTransportNIO

extension ActorHandle {
    /// Sends an HTTP request to the actor's raw `onRequest` handler, as RivetKit's
    /// `handle.fetch` does: `/gateway/{actorId}/request{path}` after resolving the actor, with
    /// the handle's connection parameters (`x-rivet-conn-params`) and the client's token.
    ///
    /// ```swift
    /// let response = try await client.getOrCreate("counter", key: ["a"]).fetch("/count")
    /// print(response.status, response.text ?? "")
    /// ```
    ///
    /// - Parameters:
    ///   - path: The path the handler sees, with its query if any (`/count`, `/items?page=2`);
    ///     a path without a leading `/` gets one.
    ///   - method: The HTTP method; `GET` by default.
    ///   - headers: Headers the handler sees.
    ///   - body: The request body.
    /// - Returns: The handler's response, whatever its status (a missing handler answers 404).
    /// - Throws: ``ActorError``: the lookup's error, the server's error before the handler ran
    ///   (`actor.not_found`, `auth.unauthorized`, `actor.action_timed_out`), or
    ///   `client.http_error` when no answer came.
    public func fetch(
        _ path: String, method: HTTPMethod = .GET, headers: HTTPHeaders = [:], body: [UInt8] = []
    ) async throws(ActorError) -> HTTPClientResponse {
        let id = try await resolve()
        let (config, http) = try await client.resolvedState()
        var requestHeaders = headers
        if let params = options.params { requestHeaders.replaceOrAdd(name: "x-rivet-conn-params", value: params.description) }
        if let token = config.token { requestHeaders.replaceOrAdd(name: "x-rivet-token", value: token) }
        let request = HTTPClientRequest(
            method: method, path: "/gateway/\(Self.gatewaySegment(actorId: id, token: config.token))/request"
                + Self.rawPath(path),
            headers: requestHeaders, body: body)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request)
        } catch {
            throw ActorError(.clientHTTPError, "\(request.path): \(error.message)")
        }
        // The gateway's own refusals carry RivetKit's error body; the handler's answers do not
        // (they carry `x-rivet-actor`).
        if response.headers.first(name: "x-rivet-actor") == nil, !(200 ..< 300).contains(response.status),
            let error = RivetMessageCodec.decodeErrorBody(response.body)
        {
            throw error
        }
        return response
    }

    /// Opens a WebSocket to the actor's raw `onWebSocket` handler, as RivetKit's
    /// `handle.webSocket` does: `/gateway/{actorId}[@token]/websocket{path}` after resolving the
    /// actor, with the handle's connection parameters. The messages are the handler's own;
    /// close the transport when done.
    ///
    /// ```swift
    /// let socket = try await client.getOrCreate("counter", key: ["a"]).webSocket("/")
    /// socket.start { event in print(event) }
    /// try socket.enqueue(.text("hello"))
    /// ```
    ///
    /// - Parameters:
    ///   - path: The path the handler sees, with its query if any; a path without a leading `/`
    ///     gets one.
    ///   - protocols: Subprotocols to offer besides RivetKit's own.
    /// - Returns: The open socket, not yet started.
    /// - Throws: ``ActorError``: the lookup's error, or `client.connection_open_failed` when the
    ///   socket could not be opened.
    public func webSocket(_ path: String = "/", protocols: [String] = []) async throws(ActorError) -> any MessageTransport {
        let id = try await resolve()
        let config = try await client.resolvedState().config
        let url = "\(config.webSocketEndpoint)/gateway/\(Self.gatewaySegment(actorId: id, token: config.token))/websocket" + Self.rawPath(path)
        var subprotocols = ["rivet"] + protocols
        if let params = options.params {
            subprotocols.append("rivet_conn_params." + HTTPQuery.percentEncode(params.description))
        }
        do {
            return try await client.transports.openSocket(url, subprotocols).0
        } catch let error as ActorError {
            throw error
        } catch {
            throw ActorError(.clientConnectionOpenFailed, "the WebSocket to \(url) could not be opened: \(error)")
        }
    }

    /// `path` with a leading `/` (an empty path stays empty, as the route's own root).
    private static func rawPath(_ path: String) -> String {
        path.isEmpty || path.hasPrefix("/") ? path : "/" + path
    }
}

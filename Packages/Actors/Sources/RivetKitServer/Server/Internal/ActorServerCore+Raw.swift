import NIOHTTP1
import RivetKit
import RpcTransport
import RpcTransportNIO

extension ActorServerCore {
    /// Whether `path` is a raw route of a gateway actor path, `/gateway/{actor}/{route}/…`
    /// (`route` is `request` or `websocket`).
    static func isRawPath(_ path: String, route: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return segments.count >= 3 && segments[0] == "gateway" && segments[2] == route
    }

    /// The part of a gateway path after `/gateway/{actor}`, beginning with `/`.
    static func actorPath(_ path: String) -> String {
        var rest = path[...]
        for _ in 0 ..< 2 {
            rest = rest.drop { $0 == "/" }
            rest = rest.drop { $0 != "/" }
        }
        return rest.isEmpty ? "/" : String(rest)
    }

    /// A query without the gateway's `rvt-*` items.
    static func userQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: true)
            .filter { !$0.hasPrefix("rvt-") }
            .joined(separator: "&")
    }

    /// Headers as a raw request shows them: lower-case names, repeated values joined.
    static func rawHeaders(_ headers: HTTPHeaders) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in headers {
            let name = name.lowercased()
            result[name] = result[name].map { "\($0), \(value)" } ?? value
        }
        return result
    }

    /// The connection parameters a realtime or raw WebSocket offers in its subprotocols.
    /// `checkEncoding` refuses an encoding other than JSON (a raw socket's messages are the
    /// handler's own, so RivetKit's client offering `rivet_encoding.bare` there is ignored).
    ///
    /// - Throws: `request.invalid` for an encoding other than JSON (when checked),
    ///   `request.invalid_params` for parameters that are not JSON.
    static func params(subprotocols: [String], checkEncoding: Bool) throws(ActorError) -> JSONValue? {
        var params: JSONValue?
        for offered in subprotocols {
            if checkEncoding, offered.hasPrefix("rivet_encoding."), offered != "rivet_encoding.json" {
                throw ActorError(.requestInvalid, "this server speaks the json encoding only")
            }
            if offered.hasPrefix("rivet_conn_params.") {
                params = try Self.params(HTTPQuery.decode(offered.dropFirst("rivet_conn_params.".count)))
            }
        }
        return params
    }

    // MARK: onRequest

    /// Answers `/gateway/{actor}/request/…` with the actor's `onRequest` handler: the request
    /// is a connection for its duration (its hooks run around the handler), bounded by the
    /// action timeout. Without a handler: 404, empty body; a throwing handler: 500.
    func rawRequest(_ request: HTTPServerRequest, tokens: [String?]) async throws(ActorError) -> HTTPServerResponse {
        guard let target = try GatewayTarget.parse(path: request.path, query: request.query) else {
            throw ActorError(.requestNotFound, "not a gateway path")
        }
        try authorize([target.token] + tokens)
        let params = try Self.params(request.headers.first(name: "x-rivet-conn-params"))
        // `/request/items` reaches the handler as `/items`, `/request` alone as `/`.
        let afterRoute = Self.actorPath(request.path).dropFirst("/request".count)
        let actorRequest = ActorRequest(
            method: request.method.rawValue, path: afterRoute.isEmpty ? "/" : String(afterRoute),
            query: Self.userQuery(request.query), headers: Self.rawHeaders(request.headers), body: request.body)
        let instance = try await enteredInstance(for: target)
        let info = ActorConnectionInfo(
            id: nextConnectionId(), actorId: instance.record.id, actorName: instance.record.name,
            key: instance.record.key, namespace: instance.record.namespace, params: params)
        var response = try await boundedByActionTimeout(instance) { () async throws(ActorError) -> HTTPServerResponse in
            let connection = try await instance.connect(info, deliver: nil, close: nil)
            let response: HTTPServerResponse
            do throws(ActorError) {
                let answer = try await instance.behavior.handleRequest(
                    actorRequest, connection: connection, runtime: instance.runtime, state: { instance.state })
                response = answer.map(Self.httpResponse) ?? HTTPServerResponse(status: 404)
            } catch {
                response = HTTPServerResponse(status: 500, json: RivetMessageCodec.encodeErrorBody(error))
            }
            await instance.disconnect(connection)
            return response
        }
        response.headers.replaceOrAdd(name: "x-rivet-actor", value: instance.record.id)
        return response
    }

    /// A handler's response as the transport sends it; a header whose name or value holds a
    /// line break (which would end the header early) is left out.
    private static func httpResponse(_ response: ActorResponse) -> HTTPServerResponse {
        var headers = HTTPHeaders()
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) {
            guard !name.contains(where: \.isNewline), !value.contains(where: \.isNewline) else { continue }
            headers.add(name: name, value: value)
        }
        return HTTPServerResponse(status: response.status, headers: headers, body: response.body)
    }

    // MARK: onWebSocket

    /// Serves `/gateway/{actor}/websocket/…` with the actor's `onWebSocket` handler: the socket
    /// is a connection (its hooks run before the handler, `onDisconnect` once it closed) and
    /// holds the actor awake until it closes.
    func serveRawWebSocket(_ transport: any MessageTransport, request: WebSocketUpgradeRequest) async {
        let instance: ActorInstance
        let info: ActorConnectionInfo
        do throws(ActorError) {
            guard let target = try GatewayTarget.parse(path: request.path, query: request.query) else {
                throw ActorError(.requestNotFound, "not a gateway path")
            }
            try authorize([target.token])
            let params = try Self.params(subprotocols: request.offeredSubprotocols, checkEncoding: false)
            instance = try await enteredInstance(for: target)
            info = ActorConnectionInfo(
                id: nextConnectionId(), actorId: instance.record.id, actorName: instance.record.name,
                key: instance.record.key, namespace: instance.record.namespace, params: params)
        } catch {
            if let owner = LeasePlacement.owner(of: error) {
                await forward(transport, request: request, to: owner, error: error)
                return
            }
            await Self.close(transport, with: error)
            return
        }
        defer { instance.leave() }
        // `nil`: the socket closed; a reason: the actor asked to close it; an error: the server
        // closes it with that error.
        let (signals, signal) = AsyncStream<Result<String, ActorError>?>.makeStream()
        let connection: ActorConn
        do throws(ActorError) {
            connection = try await instance.connect(info, deliver: nil, close: { reason in signal.yield(.success(reason)) })
        } catch {
            await Self.close(transport, with: error)
            return
        }
        // Messages wait for the handler up to a bound: a peer sending faster than its handler
        // reads is closed, not buffered without end.
        let waiting = max(configuration.maxActionsInFlightPerConnection, 1)
        let (messages, inbox) = AsyncStream<ActorWebSocketMessage>.makeStream(bufferingPolicy: .bufferingOldest(waiting))
        let socket = ActorWebSocket(
            transport: transport,
            request: ActorRequest(
                method: "GET", path: Self.actorPath(request.path), query: Self.userQuery(request.query),
                headers: Self.rawHeaders(request.headers)),
            messages: messages, maxMessageSize: configuration.maxMessageSize)
        transport.start { event in
            switch event {
            case .message(let message):
                let result = switch message.kind {
                case .text: inbox.yield(.text(String(decoding: message.bytes, as: UTF8.self)))
                case .binary: inbox.yield(.binary(message.bytes))
                }
                if case .dropped = result {
                    inbox.finish()
                    signal.yield(.failure(ActorError(
                        .actionTooManyInFlight, "a raw WebSocket may have \(waiting) messages waiting for its handler")))
                }
            case .closed:
                inbox.finish()
                signal.yield(nil)
                signal.finish()
            }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do throws(ActorError) {
                    try await instance.behavior.handleWebSocket(
                        socket, connection: connection, runtime: instance.runtime, state: { instance.state })
                } catch {
                    await Self.close(transport, with: error)
                }
            }
            serving: for await signal in signals {
                switch signal {
                case nil:
                    break serving
                case .success(let reason)?:
                    await transport.close(code: .normal, reason: reason)
                case .failure(let error)?:
                    await Self.close(transport, with: error)
                }
            }
            // The socket has closed: a handler still running has nothing left to serve.
            group.cancelAll()
        }
        await instance.disconnect(connection)
    }
}

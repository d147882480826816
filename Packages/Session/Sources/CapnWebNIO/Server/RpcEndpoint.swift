public import CapnWebCore
public import NIOHTTP1
public import RpcTransport
public import RpcTransportNIO

/// Cap'n Web served by a server other than ``withRpcServer(host:port:tls:deflate:configuration:main:isolation:_:)``:
/// a web framework's router, say, that accepts the WebSocket or reads the POST itself and
/// hands it over here. The sessions are the same as that server's; only the socket is not.
///
/// ```swift
/// // A WebSocket the framework accepted, adapted to a MessageTransport:
/// await RpcEndpoint.serveSession(over: transport, main: Inbox(user: user))
/// // A POST the framework read whole:
/// let response = await RpcEndpoint.answerBatch(request) { Inbox(user: user) }
/// ```
public enum RpcEndpoint {
    /// Serves one Cap'n Web session over an open transport, with `main` as the object the
    /// client gets as its `api`, and returns once the transport has closed and the session has
    /// ended (its pending calls failed, the client's objects released).
    ///
    /// - Parameters:
    ///   - transport: The open connection (a framework's WebSocket, adapted).
    ///   - main: The session's main object, made for this connection (from the request's
    ///     authenticated user, say); `nil` serves none.
    ///   - configuration: The session's call timeout and limits.
    ///   - upgradeHeaders: The headers of the WebSocket upgrade request: the trace context the
    ///     client sent there (when the configuration's tracer records) is the parent of the
    ///     session's call spans. Empty by default.
    public static func serveSession(
        over transport: any MessageTransport,
        main: (any RpcTarget)?,
        configuration: Configuration = Configuration(),
        upgradeHeaders: HTTPHeaders = [:]
    ) async {
        let session = RpcServer.withTraceParent(of: upgradeHeaders, configuration) {
            RpcSession<Any>.start(transport: transport, main: main, configuration: configuration)
        }
        await waitUntilClosed(transport)
        await session.close()
    }

    /// Answers one HTTP batch (a POST whose body holds the client's messages, one per line)
    /// with a fresh session and main object, as ``withRpcServer(host:port:tls:deflate:configuration:main:isolation:_:)``
    /// answers one: 200 with the session's messages, 400 for a body that is not UTF-8, 500
    /// for a batch that cannot be answered (an empty line, a message the session refuses).
    ///
    /// - Parameters:
    ///   - request: The POST, its body read whole (at most the batch's size limit; a larger
    ///     body is the caller's to refuse, with 413).
    ///   - configuration: The session's call timeout and limits.
    ///   - main: Makes the batch's main object; it is called at most once, when the batch's
    ///     first message needs it.
    /// - Returns: The response to send.
    public static func answerBatch(
        _ request: HTTPServerRequest,
        configuration: Configuration = Configuration(),
        main: @escaping @Sendable () -> (any RpcTarget)?
    ) async -> HTTPServerResponse {
        let batch: HTTPBatchRequest
        do {
            batch = try HTTPBatchRequest(request)
        } catch {
            return HTTPServerResponse(status: error.httpStatus ?? 400, text: error.message)
        }
        // The batch's spans join the trace the client sent with its request, if any.
        let answered = await RpcServer.withTraceParent(of: request.headers, configuration) {
            () async -> Result<[TransportMessage], BatchRequestError> in
            do throws(BatchRequestError) {
                return .success(try await answer(batch.messages, configuration: configuration, main: main))
            } catch {
                return .failure(error)
            }
        }
        switch answered {
        case .success(let messages):
            return HTTPServerResponse(batch: messages)
        case .failure(let error):
            return HTTPServerResponse(status: 500, text: "the batch could not be answered: \(error.description)")
        }
    }

    /// Answers the messages of one batch with a fresh session; what both servers share.
    static func answer(
        _ messages: [TransportMessage],
        configuration: Configuration,
        main: @escaping @Sendable () -> (any RpcTarget)?
    ) async throws(BatchRequestError) -> [TransportMessage] {
        if let index = messages.firstIndex(where: { $0.bytes.isEmpty }) {
            throw BatchRequestError(description: "line \(index + 1) of the batch is empty")
        }
        do {
            return try await CapnWebCore.answerBatch(messages, configuration: configuration, main: main)
        } catch {
            throw BatchRequestError(description: error.description)
        }
    }

    /// Returns once `transport` is closed.
    static func waitUntilClosed(_ transport: any MessageTransport) async {
        for await state in transport.stateUpdates() where state.isClosed {
            return
        }
    }
}

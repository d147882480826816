import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import RpcTransport

/// Answers the HTTP requests of a server connection that are not WebSocket upgrades: with a
/// request handler, every request goes to it with its body; otherwise POST batches go to the
/// batch handler and other methods (a GET without an upgrade included) get 405. Refused or
/// malformed upgrades get their status. Removed from the pipeline when the connection upgrades.
///
/// Every method runs on the connection's event loop.
final class ServerHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Between requests.
        case idle
        /// Reading the body of a batch request.
        case collecting(HTTPRequestHead, ByteBuffer)
        /// The request was answered already; its remaining parts are ignored.
        case answered
        /// A batch or request is with its handler; its answer is written when it comes back.
        case awaitingBatch
        /// A body was refused as too large; the rest is discarded until the connection closes.
        case discarding
    }

    private let core: ServerCore
    private let upgradeState: ServerUpgradeState
    private var context: ChannelHandlerContext?
    private var state: State = .idle
    private var requestVersion: HTTPVersion = .http1_1
    private var keepAlive = true
    /// Whether the body being collected is a request's for the request handler (else a batch's).
    private var collectingRequest = false
    private var idleTimer: Scheduled<Void>?
    private var drainTimer: Scheduled<Void>?
    /// Ends a request that has not arrived whole within the request read timeout, counted from
    /// its first byte (or from its head, for a request read while the one before it was being
    /// answered) to the end of its body: 408 while its body is collected, a plain close while
    /// its head is incomplete or after an early answer. Cancelled by the request's end.
    private var requestTimer: Scheduled<Void>?
    /// The handler in front of the HTTP decoder that reports the first bytes of each request;
    /// removed with this handler on upgrade.
    private(set) var startObserver: RequestStartObserver?

    init(core: ServerCore, upgradeState: ServerUpgradeState) {
        self.core = core
        self.upgradeState = upgradeState
    }

    /// Makes the observer that reports the first bytes of each request to this handler; it
    /// goes in front of the HTTP decoder.
    func makeStartObserver() -> RequestStartObserver {
        let observer = RequestStartObserver(handler: self)
        startObserver = observer
        return observer
    }

    /// Bytes arrived: between requests they are the start of the next one, whose read timeout
    /// starts now (the idle timeout no longer applies to it).
    func requestBytesArrived() {
        guard case .idle = state, requestTimer == nil, context != nil else { return }
        idleTimer?.cancel()
        idleTimer = nil
        armRequestTimer()
    }

    private var maxBody: Int {
        max(collectingRequest ? core.configuration.maxRequestBodySize : core.configuration.maxBatchBodySize, 0)
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive {
            armIdleTimer()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        drainTimer?.cancel()
        requestTimer?.cancel()
        idleTimer = nil
        drainTimer = nil
        requestTimer = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        armIdleTimer()
        context.fireChannelActive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case is NIOWebSocketUpgradeError:
            // The upgrade of this request was refused or malformed; the request itself follows.
            break
        default:
            // Includes malformed HTTP, which NIO's protocol error handler already answered with 400.
            core.logger.debug("HTTP connection failed", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            receiveHead(head)
        case .body(var chunk):
            guard case .collecting(let head, var body) = state else { return }
            guard body.readableBytes + chunk.readableBytes <= maxBody else {
                state = .answered
                refuseTooLarge()
                return
            }
            state = .answered  // drop the reference so that the append does not copy
            body.writeBuffer(&chunk)
            state = .collecting(head, body)
        case .end:
            requestTimer?.cancel()
            requestTimer = nil
            switch state {
            case .collecting(let head, let body):
                if collectingRequest {
                    dispatchRequest(head: head, body: body)
                } else {
                    dispatchBatch(head: head, body: body)
                }
            case .answered:
                state = .idle
            case .idle, .awaitingBatch, .discarding:
                break
            }
        }
    }

    // MARK: Requests

    private func receiveHead(_ head: HTTPRequestHead) {
        idleTimer?.cancel()
        idleTimer = nil
        // Running since the request's first byte, unless it was read while the one before it
        // was being answered.
        armRequestTimer()
        requestVersion = head.version
        keepAlive = head.isKeepAlive && !core.registry.isShuttingDown
        collectingRequest = core.acceptsRequests
        if core.acceptsRequests, !Self.asksForWebSocket(head) {
            beginCollecting(head)
            return
        }
        switch head.method {
        case .POST:
            guard core.acceptsBatches else {
                state = .answered
                respond(.notFound, text: "no batch endpoint")
                return
            }
            beginCollecting(head)
        case .GET:
            state = .answered
            if Self.asksForWebSocket(head) {
                // A WebSocket upgrade reaches this handler only when it was not performed.
                keepAlive = false
                respond(upgradeState.refusal ?? .badRequest, text: "WebSocket upgrade refused")
            } else {
                // As the reference batch endpoint answers anything but POST.
                respond(.methodNotAllowed, text: "method not allowed", headers: [("allow", "GET, POST")])
            }
        default:
            state = .answered
            respond(.methodNotAllowed, text: "method not allowed", headers: [("allow", "GET, POST")])
        }
    }

    /// Starts reading the body of a batch or a request, refusing it at once when its announced
    /// length is over the limit.
    private func beginCollecting(_ head: HTTPRequestHead) {
        if HTTPDeclaredLength.exceeds(maxBody, in: head.headers) {
            state = .discarding
            refuseTooLarge()
            return
        }
        let allocator = context?.channel.allocator ?? ByteBufferAllocator()
        state = .collecting(head, allocator.buffer(capacity: 0))
        armRequestTimer()
        if head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
            let interim = HTTPResponseHead(version: head.version, status: .continue)
            context?.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
        }
    }

    private static func asksForWebSocket(_ head: HTTPRequestHead) -> Bool {
        head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
    }

    private func dispatchBatch(head: HTTPRequestHead, body: ByteBuffer) {
        guard let context else { return }
        guard let messages = HTTPBatchBody.decode(body) else {
            state = .answered
            respond(.badRequest, text: "the body is not valid UTF-8")
            state = .idle
            return
        }
        guard beginAwaitingAnswer() else { return }
        let request = HTTPBatchRequest(
            path: ServerCore.path(of: head.uri),
            uri: head.uri,
            headers: head.headers,
            remoteAddress: context.channel.remoteAddress,
            messages: messages
        )
        let promise = context.eventLoop.makePromise(of: [TransportMessage].self)
        promise.futureResult.assumeIsolated().whenComplete { result in
            self.finishBatch(result)
        }
        core.work.yield(.batch(request, ServerReply(promise: promise)))
    }

    /// Registers a batch or routed request with the server and waits for its answer; when the
    /// server is shutting down, answers 503 instead, closes after it, and returns `false`.
    private func beginAwaitingAnswer() -> Bool {
        guard core.registry.beginBatch() else {
            state = .answered
            keepAlive = false
            respond(.serviceUnavailable, text: "the server is shutting down")
            state = .idle
            return false
        }
        state = .awaitingBatch
        return true
    }

    private func dispatchRequest(head: HTTPRequestHead, body: ByteBuffer) {
        guard let context else { return }
        guard beginAwaitingAnswer() else { return }
        let request = HTTPServerRequest(
            method: head.method,
            uri: head.uri,
            headers: head.headers,
            body: body.getBytes(at: body.readerIndex, length: body.readableBytes) ?? [],
            remoteAddress: context.channel.remoteAddress
        )
        let isHead = head.method == .HEAD
        let promise = context.eventLoop.makePromise(of: HTTPServerResponse.self)
        promise.futureResult.assumeIsolated().whenComplete { result in
            self.finishRequest(result, isHead: isHead)
        }
        core.work.yield(.request(request, ServerReply(promise: promise)))
    }

    private func finishRequest(_ result: Result<HTTPServerResponse, any Error>, isHead: Bool) {
        state = .idle
        let end: () -> Void = { [core] in core.registry.endBatch() }
        switch result {
        case .success(let response):
            let status = (100 ... 599).contains(response.status) ? response.status : 500
            let allocator = context?.channel.allocator ?? ByteBufferAllocator()
            let (contentType, headers) = Self.split(response.headers)
            respond(
                HTTPResponseStatus(statusCode: status),
                body: allocator.buffer(bytes: response.body),
                contentType: contentType,
                headers: headers,
                omitBody: isHead,
                written: end
            )
        case .failure(let error as TransportError) where error.code == .serverShutdown:
            keepAlive = false
            respond(.serviceUnavailable, text: "the server is shutting down", written: end)
        case .failure(let error as TransportError)
        where error.code == .httpStatus && (400 ... 599).contains(error.httpStatus ?? 0):
            respond(HTTPResponseStatus(statusCode: error.httpStatus ?? 403), text: error.message, written: end)
        case .failure(let error):
            core.logger.debug("request handler failed", metadata: ["error": "\(error)"])
            respond(.internalServerError, text: "the request handler failed", written: end)
        }
    }

    /// A handler's response headers as the server writes them: the content type apart
    /// (`application/octet-stream` when none is given), without the ones the server sets.
    private static func split(_ responseHeaders: HTTPHeaders) -> (contentType: String, headers: [(String, String)]) {
        var headers: [(String, String)] = []
        var contentType = "application/octet-stream"
        for (name, value) in responseHeaders {
            switch name.lowercased() {
            case "content-type": contentType = value
            case "content-length", "connection", "transfer-encoding": continue
            default: headers.append((name, value))
            }
        }
        return (contentType, headers)
    }

    private func finishBatch(_ result: Result<[TransportMessage], any Error>) {
        state = .idle
        switch result {
        case .success(let messages):
            let allocator = context?.channel.allocator ?? ByteBufferAllocator()
            let body = HTTPBatchBody.encode(messages, allocator: allocator)
            respond(.ok, body: body, contentType: HTTPBatchBody.contentType) { [core] in
                core.registry.endBatch()
            }
        case .failure(let error as TransportError) where error.code == .serverShutdown:
            keepAlive = false
            respond(.serviceUnavailable, text: "the server is shutting down") { [core] in
                core.registry.endBatch()
            }
        case .failure(let error as TransportError)
        where error.code == .httpStatus && (400 ... 599).contains(error.httpStatus ?? 0):
            // The handler refused the request with a status of its choosing.
            respond(HTTPResponseStatus(statusCode: error.httpStatus ?? 403), text: error.message) { [core] in
                core.registry.endBatch()
            }
        case .failure(let error):
            core.logger.debug("batch handler failed", metadata: ["error": "\(error)"])
            respond(.internalServerError, text: "the batch handler failed") { [core] in
                core.registry.endBatch()
            }
        }
    }

    /// Answers 413 and stops reading the body: the output side is closed once the answer is out
    /// and the rest of the body is discarded until the client closes or the drain timeout passes.
    private func refuseTooLarge() {
        keepAlive = false
        state = .discarding
        guard let context else { return }
        let closeOutput: () -> Void = { [weak self] in
            guard let self, let context = self.context else { return }
            context.close(mode: .output).assumeIsolated().whenFailure { _ in
                self.context?.close(promise: nil)
            }
        }
        if collectingRequest, let shape = core.configuration.requestTooLargeResponse {
            let response = shape(maxBody)
            let (contentType, headers) = Self.split(response.headers)
            respond(
                .payloadTooLarge, body: context.channel.allocator.buffer(bytes: response.body), contentType: contentType,
                headers: headers, closeAfterwards: false, written: closeOutput)
        } else {
            respond(
                .payloadTooLarge, text: "the request body exceeds \(maxBody) bytes", closeAfterwards: false,
                written: closeOutput)
        }
        drainTimer = context.eventLoop.assumeIsolated().scheduleTask(
            in: TimeAmount(core.configuration.rejectedBodyDrainTimeout)
        ) {
            self.context?.close(promise: nil)
        }
    }

    // MARK: Responses

    private func respond(
        _ status: HTTPResponseStatus,
        text: String,
        headers: [(String, String)] = [],
        closeAfterwards: Bool = true,
        written: (() -> Void)? = nil
    ) {
        let allocator = context?.channel.allocator ?? ByteBufferAllocator()
        respond(
            status,
            body: allocator.buffer(string: text),
            contentType: "text/plain; charset=utf-8",
            headers: headers,
            closeAfterwards: closeAfterwards,
            written: written
        )
    }

    private func respond(
        _ status: HTTPResponseStatus,
        body: ByteBuffer,
        contentType: String,
        headers extra: [(String, String)] = [],
        closeAfterwards: Bool = true,
        omitBody: Bool = false,
        written: (() -> Void)? = nil
    ) {
        guard let context else {
            written?()
            return
        }
        var head = HTTPResponseHead(version: requestVersion, status: status)
        head.headers.add(name: "content-type", value: contentType)
        head.headers.add(name: "content-length", value: String(body.readableBytes))
        for (name, value) in extra {
            head.headers.add(name: name, value: value)
        }
        let keepAlive = self.keepAlive && !core.registry.isShuttingDown
        if keepAlive, requestVersion == .http1_0 {
            head.headers.add(name: "connection", value: "keep-alive")
        } else if !keepAlive {
            head.headers.add(name: "connection", value: "close")
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if body.readableBytes > 0, !omitBody {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            written?()
            if !keepAlive {
                if closeAfterwards {
                    self.context?.close(promise: nil)
                }
            } else {
                self.armIdleTimer()
            }
        }
    }

    /// Gives the request that started the request read timeout to arrive whole; a timer
    /// already running (armed by the request's first bytes) is left as it is.
    private func armRequestTimer() {
        guard let context, requestTimer == nil else { return }
        let timeout = core.configuration.requestReadTimeout
        requestTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(timeout)) {
            self.requestTimer = nil
            self.requestTimedOut(after: timeout)
        }
    }

    /// Ends the request that did not arrive whole within `timeout`.
    private func requestTimedOut(after timeout: Duration) {
        switch state {
        case .collecting:
            keepAlive = false
            state = .answered
            core.logger.debug("a request stalled before its end", metadata: ["timeout": "\(timeout)"])
            respond(.requestTimeout, text: "the request did not arrive whole within \(timeout)")
        case .idle, .answered:
            // A head still incomplete (nothing to answer yet), or the rest of a request that was
            // answered early: the connection is closed.
            keepAlive = false
            core.logger.debug("a request stalled before its end", metadata: ["timeout": "\(timeout)"])
            context?.close(promise: nil)
        case .awaitingBatch, .discarding:
            // Read whole already, or bounded by the drain timeout.
            break
        }
    }

    private func armIdleTimer() {
        guard let context else { return }
        idleTimer?.cancel()
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(core.configuration.idleTimeout)) {
            guard case .idle = self.state else { return }
            self.context?.close(promise: nil)
        }
    }
}

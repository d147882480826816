import NIOHTTP1
import RivetKit
import RpcTransport
import RpcTransportNIO
import Synchronization

extension ActorServerCore {
    /// The header a forwarded request carries (the forwarding node's name): a node that gets one
    /// for an actor it does not hold answers `actor.stopping` rather than forwarding again.
    static let forwardedHeader = "x-rivet-forwarded-by"

    /// Sends an HTTP request for an actor another node holds to that node and returns its
    /// answer as it is; `error` (the placement's) names the node. A request forwarded already,
    /// or a node that cannot be reached (it may have died with its lease not yet expired), gets
    /// `actor.stopping`, which RivetKit's clients try again.
    func forward(_ request: HTTPServerRequest, to endpoint: String, error: ActorError) async -> HTTPServerResponse {
        let refusal = Self.errorResponse(LeasePlacement.forClient(error))
        guard request.headers.first(name: Self.forwardedHeader) == nil, let placement = directory.placement else {
            return refusal
        }
        var headers = HTTPHeaders()
        for (name, value) in request.headers where !Self.hopByHop.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        headers.add(name: Self.forwardedHeader, value: placement.nodeId)
        do {
            let response = try await forwardingClients.client(for: endpoint)
                .execute(HTTPClientRequest(method: request.method, path: request.uri, headers: headers, body: request.body))
            var answer = HTTPServerResponse(status: response.status, body: response.body)
            for (name, value) in response.headers where !Self.hopByHop.contains(name.lowercased()) {
                answer.headers.add(name: name, value: value)
            }
            return answer
        } catch {
            return refusal
        }
    }

    /// Serves a WebSocket for an actor another node holds by opening the same WebSocket there
    /// and passing every message both ways until one side closes, whose close the other side
    /// gets. A socket forwarded already, or a node that cannot be reached, is closed with
    /// `actor.stopping`.
    func forward(_ transport: any MessageTransport, request: WebSocketUpgradeRequest, to endpoint: String, error: ActorError)
        async
    {
        let refusal = LeasePlacement.forClient(error)
        guard request.headers.first(name: Self.forwardedHeader) == nil, let placement = directory.placement else {
            await Self.close(transport, with: refusal)
            return
        }
        var configuration = WebSocketClientConfiguration()
        configuration.subprotocols = request.offeredSubprotocols
        configuration.headers.add(name: Self.forwardedHeader, value: placement.nodeId)
        configuration.maxMessageSize = self.configuration.maxMessageSize
        configuration.maxFrameSize = self.configuration.maxMessageSize
        let base = endpoint.hasPrefix("https://") ? "wss://" + endpoint.dropFirst(8) : "ws://" + endpoint.dropFirst(7)
        let upstream: WebSocketTransport
        do {
            upstream = try await WebSocketClient.connect(to: base + request.uri, configuration: configuration)
        } catch {
            await Self.close(transport, with: refusal)
            return
        }
        await Self.relay(transport, upstream)
    }

    /// Passes messages between `client` and `upstream` until one closes, then closes the other
    /// with the same code and reason and waits for both.
    private static func relay(_ client: any MessageTransport, _ upstream: any MessageTransport) async {
        let (closures, closed) = AsyncStream<(isClient: Bool, closure: TransportClosure)>.makeStream()
        let overflow = TransportClosure(code: .internalError, reason: "", initiatedLocally: true)
        client.start { event in
            switch event {
            case .message(let message):
                do { try upstream.enqueue(message) } catch { closed.yield((false, overflow)) }
            case .closed(let closure):
                closed.yield((true, closure))
            }
        }
        upstream.start { event in
            switch event {
            case .message(let message):
                do { try client.enqueue(message) } catch { closed.yield((true, overflow)) }
            case .closed(let closure):
                closed.yield((false, closure))
            }
        }
        var seen: Set<Bool> = []
        for await (isClient, closure) in closures {
            if seen.isEmpty {
                // The first close decides for both sides.
                let code = closure.code ?? .goingAway
                await (isClient ? upstream : client).close(code: code, reason: closure.reason)
                await (isClient ? client : upstream).close(code: code, reason: closure.reason)
            }
            seen.insert(isClient)
            if seen.count == 2 { break }
        }
        closed.finish()
    }

    /// Headers that belong to one connection, not to the request or response passed on.
    private static let hopByHop: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade", "te", "trailer",
    ]
}

/// The HTTP clients that forward requests to other nodes, one per node, closed when the server
/// stops.
final class ForwardingClients: Sendable {
    private let clients = Mutex<(byEndpoint: [String: HTTPClient], closed: Bool)>(([:], false))
    private let requestTimeout: Duration

    init(requestTimeout: Duration) {
        self.requestTimeout = requestTimeout
    }

    /// The client of `endpoint`, made on first use.
    func client(for endpoint: String) throws(TransportError) -> HTTPClient {
        let existing = clients.withLock { $0.closed ? nil : $0.byEndpoint[endpoint] }
        if let existing { return existing }
        var configuration = HTTPClientConfiguration()
        configuration.requestTimeout = requestTimeout
        let made = try HTTPClient(baseURL: endpoint, configuration: configuration)
        let (client, closed) = clients.withLock { state -> (HTTPClient, Bool) in
            if state.closed { return (made, true) }
            if let raced = state.byEndpoint[endpoint] { return (raced, false) }
            state.byEndpoint[endpoint] = made
            return (made, false)
        }
        if closed { throw TransportError(code: .closed, message: "the server is stopping") }
        return client
    }

    /// Closes every client; later requests fail.
    func close() async {
        let all = clients.withLock { state -> [HTTPClient] in
            state.closed = true
            defer { state.byEndpoint = [:] }
            return Array(state.byEndpoint.values)
        }
        for client in all { await client.close() }
    }
}

import Foundation
import NIOHTTP1
import RivetKit
import RpcTransport
import RpcTransportInMemory
import RpcTransportNIO
import Synchronization

/// The RivetKit clients an actor's code reaches the other actors of its server through
/// (`context.client`): one per namespace, made on first use, whose requests never leave the
/// process. An HTTP request goes straight to the server's router; a realtime connection is one
/// end of an in-memory transport pair whose other end the server serves, in a task this object
/// owns. Everything else (resolution, retries, the action timeout, errors) is the RivetKit
/// client's own, so a call to a local actor behaves as one over the network would.
final class LocalClients: Sendable {
    /// What the server gives once it exists: its router and its connection handler.
    struct Server: Sendable {
        var respond: @Sendable (HTTPServerRequest) async -> HTTPServerResponse
        var serve: @Sendable (any MessageTransport, WebSocketUpgradeRequest) async -> Void
    }

    private struct State {
        var server: Server?
        var clients: [String: RivetKitClient] = [:]
        var open: [UInt64: InMemoryTransport] = [:]
        var nextSocket: UInt64 = 0
        var closed = false
    }

    /// The server's token, which the clients send.
    private let token: String?
    private let state = Mutex(State())
    /// The server ends of realtime connections, each served until it closes.
    private let sockets = OwnedTasks<UInt64>()

    init(token: String?) {
        self.token = token
    }

    /// Connects the clients to the server.
    func start(_ server: Server) {
        state.withLock { $0.server = server }
    }

    /// The client of `namespace`. After ``close()`` a new one is made each time, and its
    /// requests fail with the server's stopping.
    func client(namespace: String) -> RivetKitClient {
        state.withLock { state in
            if let client = state.clients[namespace] { return client }
            let client = RivetKitClient(
                ClientConfig(endpoint: "http://in-process", token: token, namespace: namespace, disableMetadataLookup: true),
                transports: transports)
            if !state.closed { state.clients[namespace] = client }
            return client
        }
    }

    /// Closes every client (their connections disposed) and waits until the server has let go
    /// of their connections; later requests fail.
    func close() async {
        let clients = state.withLock { state in
            state.closed = true
            state.server = nil
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { await client.close() }
        for transport in state.withLock({ Array($0.open.values) }) { transport.disconnect() }
        await sockets.close()
    }

    private var transports: ClientTransports {
        ClientTransports(
            openSocketWithHeaders: { [self] url, subprotocols, headers in
                try await openSocket(url: url, subprotocols: subprotocols, headers: headers)
            },
            makeHTTPClient: { [self] (_: String, headers: [String: String]) throws(TransportError) -> any ActorHTTPClient in
                LocalHTTPClient(headers: headers, respond: { [self] (request: HTTPServerRequest) async throws(TransportError) -> HTTPServerResponse in
                    guard let server = state.withLock({ $0.server }) else {
                        throw TransportError(code: .connectFailed, message: "the actor server is stopping")
                    }
                    return await server.respond(request)
                })
            })
    }

    private func openSocket(
        url: String, subprotocols: [String], headers: [String: String] = [:]
    ) async throws -> (any MessageTransport, subprotocol: String?) {
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        let uri = String(afterScheme[(afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex)...])
        let request = WebSocketUpgradeRequest(
            path: String(uri.prefix { $0 != "?" }), uri: uri, headers: HTTPHeaders(headers.map { ($0.key, $0.value) }), remoteAddress: nil,
            offeredSubprotocols: subprotocols)
        let subprotocol = "rivet"
        guard ActorServerCore.decideUpgrade(request) == .accept(subprotocol: subprotocol) else {
            throw TransportError(code: .upgradeRejected, message: "the upgrade of \(request.path) was refused")
        }
        let (client, end) = InMemoryTransport.makePair()
        let opened = state.withLock { state -> (server: Server, id: UInt64)? in
            guard let server = state.server else { return nil }
            state.nextSocket &+= 1
            state.open[state.nextSocket] = end
            return (server, state.nextSocket)
        }
        guard let (server, id) = opened else {
            throw TransportError(code: .connectFailed, message: "the actor server is stopping")
        }
        let started = sockets.spawn(id) { [self] in
            await server.serve(end, request)
            _ = state.withLock { $0.open.removeValue(forKey: id) }
        }
        guard started else {
            _ = state.withLock { $0.open.removeValue(forKey: id) }
            throw TransportError(code: .connectFailed, message: "the actor server is stopping")
        }
        return (client, subprotocol)
    }
}

/// Hands a client's HTTP requests to a server's router in process, with the client's extra
/// headers.
struct LocalHTTPClient: ActorHTTPClient {
    let headers: [String: String]
    let respond: @Sendable (HTTPServerRequest) async throws(TransportError) -> HTTPServerResponse

    func execute(_ request: HTTPClientRequest) async throws(TransportError) -> HTTPClientResponse {
        var requestHeaders = request.headers
        for (name, value) in headers { requestHeaders.add(name: name, value: value) }
        let response = try await respond(
            HTTPServerRequest(method: request.method, uri: request.path, headers: requestHeaders, body: request.body))
        return HTTPClientResponse(status: response.status, headers: response.headers, body: response.body)
    }

    func close() async {}
}

import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcTransportNIO
import Synchronization

/// Actor types with raw handlers whose hooks record themselves: `raw` answers `onRequest` by
/// echoing what it saw (or throwing, or hanging, by path) and echoes WebSocket messages;
/// `plain` has no raw handler.
final class RawProbe: Sendable {
    /// The raw actor's state.
    struct Count: Codable, Sendable, Equatable {
        var count = 0
    }

    private let log = Mutex<[String]>([])

    /// Every hook and handler run so far, in order.
    var events: [String] { log.withLock { $0 } }

    func record(_ event: String) {
        log.withLock { $0.append(event) }
    }

    /// A registry with `raw` and `plain`, under `options`.
    func registry(_ options: ActorDefinitionOptions = ActorDefinitionOptions()) -> ActorRegistry {
        var registry = ActorRegistry()
        registry.register(definition(options))
        registry.register(ActorDefinition("plain", initialState: Count()).options(options))
        return registry
    }

    private func definition(_ options: ActorDefinitionOptions) -> ActorDefinition<Count> {
        ActorDefinition("raw", initialState: Count())
            .options(options)
            .onBeforeConnect { (_: ActorLifecycleContext<Count>, connection: ActorConnectionInfo) in
                self.record("onBeforeConnect \(connection.params?["user"]?.stringValue ?? "-")")
            }
            .createConnState { (_, params: JSONValue) in params["user"]?.stringValue ?? "-" }
            .onConnect { (_: inout ActorLifecycleContext<Count>, connection: ActorConn) in
                self.record("onConnect \(try connection.state(as: String.self))")
            }
            .onDisconnect { (_: inout ActorLifecycleContext<Count>, connection: ActorConn) in
                self.record("onDisconnect \(try connection.state(as: String.self))")
            }
            .action("increment") { context in
                context.state.count += 1
                return context.state.count
            }
            .onRequest { context, request in
                self.record("onRequest \(request.method) \(request.path)")
                switch request.path {
                case "/throw":
                    throw ActorError(group: "user", code: "handler_failed", message: "asked to fail")
                case "/hang":
                    try await Task.sleep(for: .seconds(600))
                    return ActorResponse(status: 204)
                default:
                    let seen: JSONValue = [
                        "method": .string(request.method), "path": .string(request.path),
                        "query": .string(request.query), "header": .string(request.header("X-Test") ?? ""),
                        "body": .string(request.bodyText ?? ""),
                        "user": .string(try context.connection.state(as: String.self)),
                        "connections": .integer(Int64(context.connections.count)),
                        "count": .integer(Int64(try context.state().count)),
                    ]
                    return ActorResponse(
                        status: 201, headers: ["x-seen": "yes", "x-split": "a\r\nx-injected: 1"],
                        body: Array(seen.description.utf8))
                }
            }
            .onWebSocket { context, socket in
                self.record("onWebSocket \(socket.request.path)?\(socket.request.query)")
                // A handler that leaves without reading: its messages wait unread.
                if socket.request.path == "/websocket/deaf" { return }
                for await message in socket.messages {
                    switch message {
                    case .text("close"):
                        await socket.close(code: 4000, reason: "asked to close")
                    case .text("throw"):
                        throw ActorError(group: "user", code: "socket_failed", message: "asked to fail")
                    case .text(let text):
                        let user = try context.connection.state(as: String.self)
                        try await socket.send(text: "\(user):\(text)")
                    case .binary(let bytes):
                        try await socket.send(binary: bytes.reversed())
                    }
                }
                self.record("messages ended")
            }
    }

    /// Creates a `name` actor under `key`; returns its id.
    static func create(_ server: InProcessServer, name: String = "raw", key: String) async throws -> String {
        let body: JSONValue = ["name": .string(name), "key": .string(ActorKey.serialize([key]))]
        let (status, text) = await server.request(.PUT, "/actors", json: body.description)
        guard status == 200, case .string(let id)? = try JSONValue(parsing: text)["actor"]?["actor_id"] else {
            throw ServerHarness.Unexpected()
        }
        return id
    }
}

extension InProcessServer {
    /// Sends a raw HTTP request to the router; returns the whole response.
    func fetch(
        _ method: HTTPMethod, _ uri: String, headers: HTTPHeaders = [:], body: String = ""
    ) async -> HTTPServerResponse {
        await core.respond(to: HTTPServerRequest(method: method, uri: uri, headers: headers, body: Array(body.utf8)))
    }
}

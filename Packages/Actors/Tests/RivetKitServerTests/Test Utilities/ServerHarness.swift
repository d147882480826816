import Foundation
import NIOHTTP1
import RivetKit
import RivetKitServer
import RpcDoTesting
import RpcTransportNIO
import RpcWire

/// Starting servers and talking to them the way RivetKit's client does.
enum ServerHarness {
    static func configuration(token: String? = nil) -> ActorServerConfiguration {
        var configuration = ActorServerConfiguration(port: 0)
        configuration.token = token
        return configuration
    }

    /// Opens the gateway WebSocket at `path` (with query) offering RivetKit's subprotocols.
    static func connect(_ server: ActorServer, _ path: String, params: String? = nil) async throws -> FrameInbox {
        var configuration = WebSocketClientConfiguration()
        configuration.subprotocols = ["rivet", "rivet_encoding.json"]
        if let params {
            configuration.subprotocols.append("rivet_conn_params." + HTTPQuery.percentEncode(params))
        }
        let transport = try await WebSocketClient.connect(
            to: "ws://127.0.0.1:\(server.port)\(path)", configuration: configuration)
        return FrameInbox(transport)
    }

    /// Connects to a counter by key through the query gateway and waits for `Init`.
    static func counter(_ server: ActorServer, key: String, namespace: String = "default") async throws -> (FrameInbox, String) {
        let inbox = try await connect(
            server, "/gateway/counter/connect?rvt-namespace=\(namespace)&rvt-method=getOrCreate&rvt-key=\(key)")
        guard case .initialize(let actorId, _) = try await inbox.nextMessage() else { throw Unexpected() }
        return (inbox, actorId)
    }

    /// Calls an action over HTTP on an actor id and returns the status and body.
    static func httpAction(
        _ client: HTTPClient, actorId: String, _ name: String, args: [JSONValue] = [], headers: HTTPHeaders = [:]
    ) async throws -> (status: Int, body: JSONValue) {
        let response = try await client.execute(
            HTTPClientRequest(
                method: .POST, path: "/gateway/\(actorId)/action/\(name)",
                json: RivetMessageCodec.encodeActionRequestBody(args: args), headers: headers))
        return (response.status, try JSONValue(parsing: response.body))
    }

    /// Gets or creates an actor over REST; returns its id.
    static func getOrCreate(
        _ client: HTTPClient, name: String, key: [String], namespace: String = "default", input: JSONValue? = nil
    ) async throws -> String {
        var body: JSONValue = ["name": .string(name), "key": .string(ActorKey.serialize(key))]
        if let input, case .object(var object) = body {
            _ = object.updateValue(.string(Base64.encode(RivetCBOR.encode(input), padded: true)), forKey: "input")
            body = .object(object)
        }
        let response = try await client.execute(
            HTTPClientRequest(method: .PUT, path: "/actors?namespace=\(namespace)", json: body.description))
        guard case .string(let id)? = try JSONValue(parsing: response.body)["actor"]?["actor_id"] else { throw Unexpected() }
        return id
    }

    struct Unexpected: Error {}
}

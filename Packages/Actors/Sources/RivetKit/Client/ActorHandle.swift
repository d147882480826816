import NIOHTTP1
import RpcTransportNIO
import Synchronization

/// A stateless handle to one actor: HTTP actions (`POST /gateway/{id}/action/{name}`) after
/// resolving the actor with `PUT /actors` (get-or-create), and realtime connections.
///
/// ```swift
/// let handle = client.getOrCreate("counter", key: ["a"])
/// let count = try await handle.action("increment", args: [1])
/// ```
public final class ActorHandle: Sendable {
    /// The actor's identity and creation options.
    public let options: ActorOptions
    let client: RivetKitClient
    private let actorId = Mutex<String?>(nil)

    init(client: RivetKitClient, options: ActorOptions) {
        self.client = client
        self.options = options
    }

    /// The actor's id, from `PUT /actors` (the actor is created when there is none); cached.
    ///
    /// - Throws: ``ActorError``: the server's error, or `client.http_error`.
    public func resolve() async throws(ActorError) -> String {
        if let id = actorId.withLock({ $0 }) { return id }
        let (config, http) = try await client.resolvedState()
        var body = JSONObject([
            ("name", .string(options.name)),
            ("key", .string(ActorKey.serialize(options.key))),
            ("runner_name_selector", .string(config.runnerName)),
            ("crash_policy", "sleep"),
        ])
        if let region = options.createInRegion { _ = body.updateValue(.string(region), forKey: "datacenter") }
        if let input = options.createWithInput {
            _ = body.updateValue(.string(RivetBase64.encode(RivetCBOR.encode(input))), forKey: "input")
        }
        var headers = HTTPHeaders()
        if let token = config.token { headers.add(name: "authorization", value: "Bearer \(token)") }
        let path = "/actors?namespace=\(HTTPQuery.percentEncode(config.namespace))"
        let response = try await Self.send(
            http, HTTPClientRequest(method: .PUT, path: path, json: JSONValue.object(body).description, headers: headers))
        guard case .string(let id)? = response["actor"]?["actor_id"] else {
            throw ActorError(group: "client", code: "http_error", message: "PUT /actors answered without an actor id")
        }
        actorId.withLock { $0 = id }
        return id
    }

    /// Calls action `name` over HTTP with positional JSON arguments and returns its output.
    /// When the actor turns out stale (`actor.not_found` and the like), it is resolved again
    /// once.
    ///
    /// - Throws: ``ActorError``: the action's or the server's error.
    public func action(_ name: String, args: [JSONValue]) async throws(ActorError) -> JSONValue {
        do {
            return try await actionOnce(name, args: args)
        } catch where ActorCloseReason(group: error.group, code: error.code).isStaleActor {
            actorId.withLock { $0 = nil }
            return try await actionOnce(name, args: args)
        }
    }

    /// Calls action `name` with arguments encoded from Swift values and decodes its output.
    ///
    /// - Throws: ``ActorError``; `client.decode_error` when the output is not an `R`.
    public func action<R: Decodable>(_ name: String, arguments: [any Encodable]) async throws(ActorError) -> R {
        try ActorValues.decode(R.self, from: try await action(name, args: try ActorValues.encode(arguments)))
    }

    /// A new realtime connection to this actor, not shared; ``ActorConnection/dispose()`` it.
    public func connect() -> ActorConnection {
        ActorConnection(client: client, options: options)
    }

    private func actionOnce(_ name: String, args: [JSONValue]) async throws(ActorError) -> JSONValue {
        let id = try await resolve()
        let (config, http) = try await client.resolvedState()
        var headers = HTTPHeaders()
        headers.add(name: "x-rivet-encoding", value: "json")
        if let params = options.params { headers.add(name: "x-rivet-conn-params", value: params.description) }
        var segment = HTTPQuery.percentEncode(id)
        if let token = config.token {
            headers.add(name: "x-rivet-token", value: token)
            segment += "@" + HTTPQuery.percentEncode(token)
        }
        let request = HTTPClientRequest(
            method: .POST, path: "/gateway/\(segment)/action/\(HTTPQuery.percentEncode(name))",
            json: RivetMessageCodec.encodeActionRequestBody(args: args), headers: headers)
        let response = try await Self.send(http, request)
        return try RivetJSONCompat.decode(response["output"] ?? .null)
    }

    /// Sends a request and returns its JSON body; a non-2xx answer becomes its error.
    private static func send(_ http: HTTPClient, _ request: HTTPClientRequest) async throws(ActorError) -> JSONValue {
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request)
        } catch {
            throw ActorError(group: "client", code: "http_error", message: "\(request.path): \(error.message)")
        }
        guard (200 ..< 300).contains(response.status) else {
            throw RivetMessageCodec.decodeErrorBody(response.body)
                ?? ActorError(group: "client", code: "http_error", message: "\(request.path) answered \(response.status)")
        }
        guard let body = try? JSONValue(parsing: response.body) else {
            throw ActorError(group: "client", code: "http_error", message: "\(request.path) answered with no JSON")
        }
        return body
    }
}

import NIOHTTP1
import RpcTransportNIO
import Synchronization
import RpcWire
import RpcTransport
import Tracing

/// A stateless handle to one actor: HTTP actions (`POST /gateway/{id}/action/{name}`) after
/// resolving the actor, and realtime connections.
///
/// How the actor is resolved depends on the handle's ``ActorOptions/lookup``: `PUT /actors`
/// (get-or-create) for ``RivetKitClient/getOrCreate(_:key:params:createWithInput:createInRegion:)``,
/// `GET /actors?name=…&key=…` for ``RivetKitClient/get(_:key:params:)``, and no request at all
/// for ``RivetKitClient/getForId(_:actorId:params:)`` and the handles
/// ``RivetKitClient/create(_:key:params:input:region:)`` returns.
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

    /// The actor's id: an id handle's own, or looked up once and cached (`PUT /actors`, which
    /// creates the actor when there is none, or `GET /actors` for a `get` handle).
    ///
    /// - Throws: ``ActorError``: the server's error, `actor.not_found` when a `get` handle's
    ///   actor does not exist, or `client.http_error`.
    public func resolve() async throws(ActorError) -> String {
        if case .id(let id) = options.lookup { return id }
        if let id = actorId.withLock({ $0 }) { return id }
        let (config, http) = try await client.resolvedState()
        let id: String
        if options.lookup == .get {
            id = try await Self.find(http: http, config: config, name: options.name, key: options.key)
        } else {
            let body = Self.creationBody(
                config: config, name: options.name, key: options.key, input: options.createWithInput,
                region: options.createInRegion)
            let response = try await Self.send(
                http,
                HTTPClientRequest(
                    method: .PUT, path: Self.actorsPath(config), json: JSONValue.object(body).description,
                    headers: Self.restHeaders(config)))
            guard case .string(let created)? = response["actor"]?["actor_id"] else {
                throw ActorError(.clientHTTPError, "PUT /actors answered without an actor id")
            }
            id = created
        }
        actorId.withLock { $0 = id }
        return id
    }

    /// Creates an actor with `POST /actors` and returns its id.
    static func create(client: RivetKitClient, options: ActorOptions) async throws(ActorError) -> String {
        let (config, http) = try await client.resolvedState()
        let body = creationBody(
            config: config, name: options.name, key: options.key, input: options.createWithInput,
            region: options.createInRegion)
        let response = try await send(
            http,
            HTTPClientRequest(
                method: .POST, path: actorsPath(config), json: JSONValue.object(body).description,
                headers: restHeaders(config)))
        guard case .string(let id)? = response["actor"]?["actor_id"] else {
            throw ActorError(.clientHTTPError, "POST /actors answered without an actor id")
        }
        return id
    }

    /// The id of the actor of `name` and `key` from `GET /actors`; `actor.not_found` when the
    /// list is empty.
    private static func find(
        http: any ActorHTTPClient, config: ResolvedClientConfig, name: String, key: [String]
    ) async throws(ActorError) -> String {
        let path =
            "/actors?name=\(HTTPQuery.percentEncode(name))&key=\(HTTPQuery.percentEncode(ActorKey.serialize(key)))"
            + "&namespace=\(HTTPQuery.percentEncode(config.namespace))"
        let response = try await send(http, HTTPClientRequest(method: .GET, path: path, headers: restHeaders(config)))
        guard case .array(let actors)? = response["actors"] else {
            throw ActorError(.clientHTTPError, "GET /actors answered without an actor list")
        }
        guard let first = actors.first else {
            throw ActorError(
                .actorNotFound,
                "no \(name) actor has the key \(ActorKey.serialize(key))")
        }
        guard case .string(let id)? = first["actor_id"] else {
            throw ActorError(.clientHTTPError, "GET /actors answered an actor without an id")
        }
        return id
    }

    /// The body of `PUT /actors` and `POST /actors`; `input` and `datacenter` only when set.
    private static func creationBody(
        config: ResolvedClientConfig, name: String, key: [String], input: JSONValue?, region: String?
    ) -> JSONObject {
        var body = JSONObject([
            ("name", .string(name)),
            ("key", .string(ActorKey.serialize(key))),
            ("runner_name_selector", .string(config.runnerName)),
            ("crash_policy", "sleep"),
        ])
        if let region { _ = body.updateValue(.string(region), forKey: "datacenter") }
        if let input { _ = body.updateValue(.string(Base64.encode(RivetCBOR.encode(input), padded: true)), forKey: "input") }
        return body
    }

    private static func actorsPath(_ config: ResolvedClientConfig) -> String {
        "/actors?namespace=\(HTTPQuery.percentEncode(config.namespace))"
    }

    private static func restHeaders(_ config: ResolvedClientConfig) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let token = config.token { headers.add(name: "authorization", value: "Bearer \(token)") }
        return headers
    }

    /// Calls action `name` over HTTP with positional JSON arguments and returns its output.
    /// When the actor of a key-based handle turns out stale (`actor.not_found` and the like),
    /// it is resolved again once; an id handle has nothing to resolve again.
    ///
    /// - Throws: ``ActorError``: the action's or the server's error.
    public func action(_ name: String, args: [JSONValue]) async throws(ActorError) -> JSONValue {
        guard let tracer = client.tracer else { return try await run(name, args: args, trace: nil) }
        // The request carries the action span's trace context: the server's span is its child.
        return try await RpcClientSpan.run(
            "rivetkit.action \(name)", system: "rivetkit", method: name, attributes: ["rivetkit.actor": options.name],
            tracer: tracer, code: { (error: ActorError) in error.rpcFailure.code.rawValue }
        ) { context throws(ActorError) in
            try await run(name, args: args, trace: (tracer, context))
        }
    }

    /// ``action(_:args:)`` without its span; `trace` is written into the request's headers.
    private func run(
        _ name: String, args: [JSONValue], trace: (tracer: any Tracer, context: ServiceContext)?
    ) async throws(ActorError) -> JSONValue {
        do {
            return try await actionOnce(name, args: args, trace: trace)
        } catch where ActorCloseReason(group: error.group, code: error.code).isStaleActor && !options.lookup.isId {
            actorId.withLock { $0 = nil }
            return try await actionOnce(name, args: args, trace: trace)
        }
    }

    /// Calls action `name` with arguments encoded from Swift values and decodes its output.
    ///
    /// - Throws: ``ActorError``; `client.decode_error` when the output is not an `R`.
    public func action<R: Decodable>(_ name: String, arguments: [any Encodable]) async throws(ActorError) -> R {
        try ActorValues.decode(R.self, from: try await action(name, args: try ActorValues.encode(arguments)))
    }

    /// A new realtime connection to this actor, not shared; ``ActorConnection/dispose()`` it.
    /// Key-based handles connect through the query gateway (`rvt-method=getOrCreate` or
    /// `get`), id handles to `/gateway/{id}[@token]/connect`.
    public func connect() -> ActorConnection {
        ActorConnection(client: client, options: options)
    }

    /// Opens a new realtime connection to this actor (as ``connect()``), runs `body` with it,
    /// and disposes it when `body` returns or throws.
    ///
    /// ```swift
    /// let count = try await handle.withConnection { connection in
    ///     try await connection.action("increment", args: [1])
    /// }
    /// ```
    ///
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withConnection<T>(
        isolation: isolated (any _Concurrency.Actor)? = #isolation,
        _ body: (ActorConnection) async throws -> T
    ) async throws -> T {
        try await connect().withConnection(body)
    }

    private func actionOnce(
        _ name: String, args: [JSONValue], trace: (tracer: any Tracer, context: ServiceContext)?
    ) async throws(ActorError) -> JSONValue {
        let id = try await resolve()
        let (config, http) = try await client.resolvedState()
        var headers = HTTPHeaders()
        if let trace { TraceContextPropagation.inject(trace.context, into: &headers, using: trace.tracer) }
        headers.add(name: "x-rivet-encoding", value: "json")
        if let params = options.params { headers.add(name: "x-rivet-conn-params", value: params.description) }
        if let token = config.token { headers.add(name: "x-rivet-token", value: token) }
        let segment = Self.gatewaySegment(actorId: id, token: config.token)
        let request = HTTPClientRequest(
            method: .POST, path: "/gateway/\(segment)/action/\(HTTPQuery.percentEncode(name))",
            json: RivetMessageCodec.encodeActionRequestBody(args: args), headers: headers)
        let response = try await Self.send(http, request)
        return try RivetJSONCompat.decode(response["output"] ?? .null)
    }

    /// The path segment that addresses an actor by id on the gateway, `{id}[@token]`, both
    /// percent-encoded: HTTP actions and realtime connections by id go below it.
    static func gatewaySegment(actorId: String, token: String?) -> String {
        HTTPQuery.percentEncode(actorId) + (token.map { "@" + HTTPQuery.percentEncode($0) } ?? "")
    }

    /// Sends a request and returns its JSON body; a non-2xx answer becomes its error.
    private static func send(_ http: any ActorHTTPClient, _ request: HTTPClientRequest) async throws(ActorError) -> JSONValue {
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request)
        } catch {
            throw ActorError(.clientHTTPError, "\(request.path): \(error.message)")
        }
        guard (200 ..< 300).contains(response.status) else {
            throw RivetMessageCodec.decodeErrorBody(response.body)
                ?? ActorError(.clientHTTPError, "\(request.path) answered \(response.status)")
        }
        guard let body = try? JSONValue(parsing: response.body) else {
            throw ActorError(.clientHTTPError, "\(request.path) answered with no JSON")
        }
        return body
    }
}

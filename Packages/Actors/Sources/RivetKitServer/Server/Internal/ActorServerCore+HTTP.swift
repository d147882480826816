import Foundation
import NIOHTTP1
import RivetKit
import RpcTransportNIO
import RpcWire

extension ActorServerCore {
    /// Answers one HTTP request of RivetKit's surface; errors become RivetKit error bodies.
    func respond(to request: HTTPServerRequest) async -> HTTPServerResponse {
        do throws(ActorError) {
            return try await route(request)
        } catch {
            if let owner = LeasePlacement.owner(of: error) { return await forward(request, to: owner, error: error) }
            return Self.errorResponse(error)
        }
    }

    private func route(_ request: HTTPServerRequest) async throws(ActorError) -> HTTPServerResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let bearer = request.headers.first(name: "authorization").flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
        }
        let headerToken = request.headers.first(name: "x-rivet-token")
        let namespace = request.queryValue("namespace") ?? "default"
        switch (request.method, segments.first) {
        case (.GET, "metadata") where segments.count == 1:
            try authorize([bearer, headerToken])
            let names = await directory.actorNames
            return Self.json([
                "runtime": "rivetkit",
                "version": .string(Self.version),
                "envoyProtocolVersion": 1,
                "actorNames": .object(JSONObject(names.map { ($0, ["metadata": [:]]) })),
            ])
        case (_, "actors"):
            try authorize([bearer, headerToken])
            return try await actors(request, segments: segments, namespace: namespace)
        case (_, "gateway") where Self.isRawPath(request.path, route: "request"):
            return try await rawRequest(request, tokens: [headerToken, bearer])
        case (.POST, "gateway"):
            guard let target = try GatewayTarget.parse(path: request.path, query: request.query),
                target.rest.count == 2, target.rest[0] == "action"
            else { break }
            try authorize([target.token, headerToken, bearer])
            return try await httpAction(request, target: target, name: target.rest[1])
        default:
            break
        }
        throw ActorError(.requestNotFound, "\(request.method.rawValue) \(request.path) is not a route")
    }

    private func actors(_ request: HTTPServerRequest, segments: [String], namespace: String) async throws(ActorError)
        -> HTTPServerResponse
    {
        switch (request.method, segments.count) {
        case (.PUT, 1), (.POST, 1):
            let body = try Self.jsonBody(request)
            guard case .string(let name)? = body["name"] else {
                throw ActorError(.requestInvalid, "the body names no actor type")
            }
            let key: [String]
            switch body["key"] {
            case .string(let serialized)?:
                key = try ActorKey.parse(serialized: serialized)
            case nil, .null?:
                // RivetKit's create without a key makes a new actor every time, under a fresh
                // random key; get-or-create without one means the empty key.
                key = request.method == .POST ? [UUID().uuidString.lowercased()] : []
            default:
                throw ActorKey.invalidKey("key is a string")
            }
            var input: JSONValue?
            if case .string(let encoded)? = body["input"] {
                guard let bytes = Base64.decode(encoded, acceptingURLSafe: true) else {
                    throw ActorError(.requestInvalid, "input is not base64")
                }
                input = try RivetCBOR.decode(bytes)
            }
            // One insert-or-get decides, so two creations of one key cannot both succeed.
            let (actor, created) = try await directory.getOrCreate(namespace: namespace, name: name, key: key, input: input)
            if request.method == .POST {
                guard created else {
                    throw ActorError(.actorDuplicateKey, "an actor with that key exists")
                }
                return Self.json(["actor": Self.actorObject(actor)])
            }
            return Self.json(["actor": Self.actorObject(actor), "created": .bool(created)])
        case (.GET, 1):
            var found: [StoredActor] = []
            if let ids = request.queryValue("actor_ids") {
                for id in ids.split(separator: ",") {
                    if let actor = try await directory.find(id: String(id)), actor.namespace == namespace {
                        found.append(actor)
                    }
                }
            } else if let name = request.queryValue("name") {
                let key = try ActorKey.parse(serialized: request.queryValue("key") ?? "/")
                if let actor = try await directory.find(namespace: namespace, name: name, key: key) {
                    found.append(actor)
                }
            } else {
                throw ActorError(.requestInvalid, "give name and key, or actor_ids")
            }
            return Self.json(["actors": .array(found.map(Self.actorObject))])
        case (.DELETE, 2):
            guard try await directory.destroy(id: segments[1]) else {
                // RivetKit's engine answers an unknown id with 400 (its API maps only its own
                // group to other statuses).
                let error = ActorError(.actorNotFound, "The actor does not exist or was destroyed.")
                return HTTPServerResponse(status: 400, json: RivetMessageCodec.encodeErrorBody(error))
            }
            return Self.json([:])
        default:
            throw ActorError(.requestNotFound, "\(request.method.rawValue) \(request.path) is not a route")
        }
    }

    private func httpAction(_ request: HTTPServerRequest, target: GatewayTarget, name: String) async throws(ActorError)
        -> HTTPServerResponse
    {
        if let encoding = request.headers.first(name: "x-rivet-encoding"), encoding != "json" {
            throw ActorError(.requestInvalid, "this server speaks the json encoding only")
        }
        let args = try RivetMessageCodec.decodeActionRequestBody(request.body)
        let params = try Self.params(request.headers.first(name: "x-rivet-conn-params"))
        let instance = try await enteredInstance(for: target)
        let info = ActorConnectionInfo(
            id: nextConnectionId(), actorId: instance.record.id, actorName: instance.record.name,
            key: instance.record.key, namespace: instance.record.namespace, params: params)
        // The action's span joins the trace the client sent with its request, if any.
        let traceParent = instance.traceParent(of: request.headers)
        // The action runs in a task of its own, so that its deadline can answer while it runs;
        // the connection and the hold last until it has ended.
        let output = try await boundedByActionTimeout(instance) { () async throws(ActorError) -> JSONValue in
            let connection = try await instance.connect(info, deliver: nil, close: nil)
            let result: Result<JSONValue, ActorError>
            do throws(ActorError) {
                result = .success(
                    try await instance.perform(name, args: args, connection: connection, traceParent: traceParent))
            } catch {
                result = .failure(error)
            }
            await instance.disconnect(connection)
            return try result.get()
        }
        return HTTPServerResponse(status: 200, json: RivetMessageCodec.encodeActionResponseBody(output: output))
    }

    /// Connection parameters in their JSON text; `nil` for none.
    static func params(_ text: String?) throws(ActorError) -> JSONValue? {
        guard let text, !text.isEmpty else { return nil }
        do {
            return try JSONValue(parsing: text)
        } catch {
            throw ActorError(.requestInvalidParams, "the connection parameters are not JSON")
        }
    }

    private static func jsonBody(_ request: HTTPServerRequest) throws(ActorError) -> JSONObject {
        guard let value = try? JSONValue(parsing: request.body), case .object(let object) = value else {
            throw ActorError(.requestInvalid, "the body is not a JSON object")
        }
        return object
    }
}

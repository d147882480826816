import RivetKit
import RivetKitServer
import Testing

@Suite("Actor error codes as RpcFailure")
struct ActorErrorCodeTests {
    /// Every code of the catalogue in its order, with its RpcFailure code and origin.
    static let table: [(String, String, RpcFailure.Origin)] = [
        ("client.disposed", "unavailable", .local),
        ("client.connection_lost", "unavailable", .local),
        ("client.connection_open_failed", "unavailable", .local),
        ("client.config_error", "invalidArgument", .local),
        ("client.decode_error", "internalError", .local),
        ("client.encode_error", "invalidArgument", .local),
        ("client.internal_error", "internalError", .local),
        ("client.closed", "unavailable", .local),
        ("client.cancelled", "cancelled", .local),
        ("client.http_error", "unavailable", .local),
        ("client.not_connected", "unavailable", .local),
        ("client.action_timeout", "deadlineExceeded", .local),
        ("actor.not_found", "notFound", .remote),
        ("actor.invalid_key", "invalidArgument", .remote),
        ("actor.starting", "unavailable", .remote),
        ("actor.stopping", "unavailable", .remote),
        ("actor.not_configured", "unavailable", .remote),
        ("actor.dropped_reply", "unavailable", .remote),
        ("actor.duplicate_key", "alreadyExists", .remote),
        ("actor.state_unreadable", "dataLoss", .remote),
        ("actor.state_invalid", "invalidArgument", .remote),
        ("actor.state_too_large", "resourceExhausted", .remote),
        ("actor.too_many_connections", "resourceExhausted", .remote),
        ("actor.destroyed_while_connected", "unavailable", .remote),
        ("actor.action_timed_out", "deadlineExceeded", .remote),
        ("schedule.max_schedules_exceeded", "resourceExhausted", .remote),
        ("schedule.invalid_time", "invalidArgument", .remote),
        ("message.malformed", "internalError", .remote),
        ("message.incoming_too_long", "resourceExhausted", .remote),
        ("message.outgoing_too_long", "resourceExhausted", .remote),
        ("action.not_found", "unimplemented", .remote),
        ("action.too_many_in_flight", "resourceExhausted", .remote),
        ("action.too_many_pending_bytes", "resourceExhausted", .remote),
        ("connection.outbound_full", "resourceExhausted", .remote),
        ("connection.too_many_subscriptions", "resourceExhausted", .remote),
        ("request.invalid", "invalidArgument", .remote),
        ("request.invalid_params", "invalidArgument", .remote),
        ("request.not_found", "notFound", .remote),
        ("auth.unauthorized", "unauthenticated", .remote),
        ("rivetkit.internal_error", "internalError", .remote),
    ]

    @Test("the table names every code of the catalogue once, in its order")
    func tableIsComplete() {
        #expect(ActorErrorCode.all.map(\.description) == Self.table.map(\.0))
        #expect(Set(ActorErrorCode.all).count == ActorErrorCode.all.count)
    }

    @Test("each catalogue code keeps its group.code, its RpcFailure code and its origin", arguments: zip(ActorErrorCode.all, table))
    func codes(code: ActorErrorCode, expected: (String, String, RpcFailure.Origin)) {
        let (name, mapped, origin) = expected
        #expect(code.description == name)
        let error = ActorError(code, "m")
        #expect("\(error.group).\(error.code)" == name)
        #expect(error.errorCode == code)
        let failure = error.rpcFailure
        #expect(failure.code.rawValue == mapped)
        #expect(failure.origin == origin)
        #expect(failure.metadata == ["layer": "actors", "reason": name, "group": code.group, "code": code.code])
        #expect(failure.cause as? ActorError == error)
    }

    @Test("an actor's own code is a remote unknown failure, and any destroyed_ code is unavailable")
    func otherCodes() {
        let thrown = ActorError(group: "user", code: "test_error", message: "boom", metadata: ["why": "asked to fail"])
        #expect(thrown.rpcFailure.code == .unknown)
        #expect(thrown.rpcFailure.origin == .remote)
        #expect((thrown.rpcFailure.cause as? ActorError)?.metadata == ["why": "asked to fail"])
        #expect(ActorErrorCode(group: "actor", code: "destroyed_by_owner").rpcFailureCode == .unavailable)
        #expect(ActorErrorCode(group: "actor", code: "destroyed_by_owner").isStaleActor)
        #expect(!ActorErrorCode.actorDuplicateKey.isStaleActor)
        #expect(ActorCloseReason(parsing: "actor.starting#r1")?.isStaleActor == true)
    }

    @Test("a result decoded as the wrong type and an argument that cannot be encoded are local client errors")
    func localFailures() async throws {
        try await ClientTests.withServer { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, disableMetadataLookup: true))
            let handle = client.getOrCreate("counter", key: ["local"])
            let decode = await #expect(throws: ActorError.self) {
                let _: String = try await handle.action("getCount", arguments: [])
            }
            #expect(decode?.errorCode == .clientDecodeError)
            #expect(decode?.rpcFailure.origin == .local)
            let encode = await #expect(throws: ActorError.self) {
                let _: Int = try await handle.action("increment", arguments: [Double.nan])
            }
            #expect(encode?.errorCode == .clientEncodeError)
            #expect(encode?.rpcFailure.origin == .local)
            await client.close()
        }
    }
}

import RpcWire
import Testing
import TinyvexProtocol
import TinyvexServer

@Suite("Tinyvex one-shot queries: tinyvex/query", .timeLimit(.minutes(1)))
struct OneShotQueryTests {
    private func withPeer(_ body: (TinyvexServer, InMemoryPeer) async throws -> Void) async throws {
        try await TinyvexServer.withEmbeddedServer(schema: TinyvexDemoSchema.schema()) { server in
            let peer = InMemoryPeer(serving: server)
            do {
                try await body(server, peer)
            } catch {
                await peer.close()
                throw error
            }
            await peer.close()
        }
    }

    private func send(_ peer: InMemoryPeer, _ requestID: String, channel: String, text: String) async throws -> JSONValue {
        try await peer.call(TinyvexMethod.mutation, [
            "requestId": .string(requestID), "name": "messages.send",
            "args": ["channel": .string(channel), "author": "ann", "text": .string(text)],
        ])
    }

    @Test("a query answers its current value and the version it was read at, and keeps no live query")
    func answersOnce() async throws {
        try await withPeer { server, peer in
            let empty = try await peer.call(TinyvexMethod.query, ["name": "messages.list", "params": ["channel": "general"]])
            #expect(empty.result?["value"] == .array([]))
            #expect(empty.result?["seq"] == .integer(0))
            let sent = try await send(peer, "r1", channel: "general", text: "hello")
            let id = try #require(sent.result?["value"]?.int64Value)
            let answer = try await peer.call(TinyvexMethod.query, ["name": "messages.list", "params": ["channel": "general"]])
            #expect(answer.result?["value"] == .array([["id": .integer(id), "channel": "general", "author": "ann", "text": "hello"]]))
            #expect(answer.result?["seq"] == sent.result?["seq"])
            // Any query of the schema, with no params when it takes none.
            let channels = try await peer.call(TinyvexMethod.query, ["name": "channels.list"])
            #expect(channels.result?["value"] == ["general"])
            #expect(await server.liveQueryCount == 0)
        }
    }

    @Test("nothing follows a query: a later write sends no data")
    func noLaterValues() async throws {
        try await withPeer { _, peer in
            _ = try await peer.call(TinyvexMethod.query, ["name": "messages.list", "params": ["channel": "general"]])
            _ = try await send(peer, "r1", channel: "general", text: "after")
            // A request answered after the write: whatever the write caused has been sent before it.
            _ = try await peer.call(TinyvexMethod.ping, ["t": 1])
            #expect(peer.notifications(TinyvexMethod.data).isEmpty)
            #expect(peer.notifications(TinyvexMethod.transitionChunk).isEmpty)
        }
    }

    @Test("an unknown query or params its query refuses answer TVX002; a missing name answers -32602")
    func errors() async throws {
        try await withPeer { _, peer in
            let unknown = try await peer.call(TinyvexMethod.query, ["name": "nothing.here"])
            #expect(unknown.errorCode == TinyvexErrorCode.subscriptionRejected.jsonRPCCode)
            #expect(unknown["error"]?["data"]?["code"] == "TVX002")
            let undecodable = try await peer.call(TinyvexMethod.query, ["name": "messages.list", "params": ["channel": 7]])
            #expect(undecodable["error"]?["data"]?["code"] == "TVX002")
            let long = String(repeating: "c", count: TinyvexDemoSchema.maxNameBytes + 1)
            let refused = try await peer.call(TinyvexMethod.query, ["name": "messages.list", "params": ["channel": .string(long)]])
            #expect(refused["error"]?["data"]?["code"] == "TVX002")
            #expect(refused["error"]?["data"]?["details"]?["field"] == "channel")
            let unnamed = try await peer.call(TinyvexMethod.query, ["params": ["channel": "general"]])
            #expect(unnamed.errorCode == -32602)
            let notObject = try await peer.call(TinyvexMethod.query, ["name": "messages.list", "params": [1, 2]])
            #expect(notObject.errorCode == -32602)
            // The connection goes on.
            #expect(try await peer.call(TinyvexMethod.ping, ["t": 2]).result == ["t": 2])
        }
    }

    @Test("a query that needs an identity answers TVX006 without one")
    func needsIdentity() async throws {
        var schema = TinyvexSchema()
        schema.query("me", requiresIdentity: true) { (context, _: Empty) -> String in context.identity ?? "" }
        try await TinyvexServer.withEmbeddedServer(schema: schema) { server in
            let peer = InMemoryPeer(serving: server)
            let answer = try await peer.call(TinyvexMethod.query, ["name": "me"])
            #expect(answer["error"]?["data"]?["code"] == "TVX006")
            await peer.close()
        }
    }

    private struct Empty: Codable {}
}

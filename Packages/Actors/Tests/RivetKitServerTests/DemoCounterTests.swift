import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Testing

@Suite("The demo counter's connection state, connections, wake count and destroy")
struct DemoCounterTests {
    static let path = "/gateway/counter/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=demo"

    @Test("whoAmI answers from each connection's state, made from its user param; connectionCount counts the live ones")
    func whoAmIAndConnections() async throws {
        try await InProcessServer.with { server in
            let ann = try await server.connectRaw(Self.path, params: #"{"user":"ann"}"#)
            _ = try await ann.initialized()
            let nobody = try await server.connectRaw(Self.path, params: #"{"other":1}"#)
            _ = try await nobody.initialized()
            #expect(try await ann.call(1, "whoAmI") == "ann")
            #expect(try await nobody.call(1, "whoAmI") == .null)
            #expect(try await ann.call(2, "connectionCount") == 2)
            await nobody.transport.close(code: .normal, reason: "")
            try await waitUntil("one connection is left") { (try? await ann.call(3, "connectionCount")) == 1 }
        }
    }

    @Test("wakeCount reads 1 after the first request and 2 after a sleep and a wake; destroySelf makes the actor not_found")
    func wakeCountAndDestroy() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let body: JSONValue = ["name": "counter", "key": .string(ActorKey.serialize(["wakes-\(UUID().uuidString)"]))]
            let (_, text) = await server.request(.PUT, "/actors", json: body.description)
            guard case .string(let id)? = try JSONValue(parsing: text)["actor"]?["actor_id"] else {
                throw ServerHarness.Unexpected()
            }
            #expect(try await server.httpAction(actorId: id, "wakeCount").body == ["output": 1])
            #expect(await server.core.directory.sleepIdle(now: .now + .seconds(3600)) == 1)
            try await waitUntil("the counter has slept") { await server.core.directory.awakeIds.isEmpty }
            #expect(try await server.httpAction(actorId: id, "wakeCount").body == ["output": 2])
            #expect(try await server.httpAction(actorId: id, "destroySelf").body == ["output": true])
            try await waitUntil("the counter is gone") { try await server.httpAction(actorId: id, "getCount").status == 404 }
        }
    }
}

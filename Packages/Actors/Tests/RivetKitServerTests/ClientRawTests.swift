import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import RpcTransportNIO
import Testing

@Suite("The client's raw calls: handle.fetch and handle.webSocket reach onRequest and onWebSocket")
struct ClientRawTests {
    @Test("handle.fetch sends the method, path, query, headers, body and connection params; any status comes back as a response")
    func fetchRoundTrip() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let client = server.client()
            let handle = client.getOrCreate("raw", key: ["a"], params: ["user": "ann"])
            var headers = HTTPHeaders()
            headers.add(name: "x-test", value: "hello")
            let response = try await handle.fetch("items/7?page=2", method: .POST, headers: headers, body: Array("payload".utf8))
            #expect(response.status == 201)
            let seen = try JSONValue(parsing: response.text ?? "")
            #expect(seen["method"] == "POST")
            #expect(seen["path"] == "/items/7")
            #expect(seen["query"] == "page=2")
            #expect(seen["header"] == "hello")
            #expect(seen["body"] == "payload")
            #expect(seen["user"] == "ann")
            await client.close()
        }
    }

    @Test("The demo counter answers handle.fetch(\"/count\") with its count, another path with a 404 response, and a missing actor with actor.not_found")
    func fetchDemoCounter() async throws {
        try await InProcessServer.with { server in
            let client = server.client()
            let counter = client.getOrCreate("counter", key: ["fetched"])
            _ = try await counter.action("increment", args: [6])
            let count = try await counter.fetch("/count")
            #expect(count.status == 200)
            #expect(try JSONValue(parsing: count.text ?? "") == ["count": 6])
            #expect(try await counter.fetch("/other").status == 404)
            do throws(ActorError) {
                _ = try await client.get("counter", key: ["nobody"]).fetch("/count")
                Issue.record("a missing actor answered")
            } catch {
                #expect(error.group == "actor" && error.code == "not_found")
            }
            await client.close()
        }
    }

    @Test("handle.webSocket opens the actor's raw socket: the demo counter echoes count:<N>:<text>, and closing it ends the connection")
    func webSocketRoundTrip() async throws {
        try await InProcessServer.with { server in
            let client = server.client()
            let counter = client.getOrCreate("counter", key: ["socket"])
            _ = try await counter.action("increment", args: [2])
            let socket = FrameInbox(try await counter.webSocket("/echo"))
            try await socket.transport.send(.text("hi"))
            #expect(try await socket.next() == "count:2:hi")
            await socket.transport.close(code: .normal, reason: "")
            try await waitUntil("the server to let go of the socket") { server.openCount == 0 }
            await client.close()
        }
    }
}

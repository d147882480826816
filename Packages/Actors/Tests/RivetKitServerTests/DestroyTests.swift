import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Testing

@Suite("Destroy: context.destroy() and DELETE /actors/{id}")
struct DestroyTests {
    @Test("context.destroy() answers its action, runs onDestroy, closes connections with 1000 and no reason, removes the state; later requests are actor.not_found")
    func destroyFromAction() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await ProbeActor.create(server, key: "doomed")
            #expect(try await server.httpAction(actorId: id, "increment", args: [3]).body == ["output": 3])
            let socket = try await server.connectRaw(ProbeActor.connectPath(key: "doomed"))
            _ = try await socket.initialized()

            #expect(try await server.httpAction(actorId: id, "destroySelf").body == ["output": "bye"])
            let closure = try await socket.closure()
            #expect(closure.code == .normal)
            #expect(closure.reason == "")
            try await waitUntil("the actor is gone from the store") { try await server.core.directory.find(id: id) == nil }
            #expect(probe.events.filter { $0 == "onDestroy" }.count == 1)

            let later = try await server.httpAction(actorId: id, "getCount")
            #expect(later.status == 404)
            #expect(later.body["group"] == "actor")
            #expect(later.body["code"] == "not_found")
            let reconnect = try await server.connectRaw("/gateway/\(id)/connect")
            let refused = try await reconnect.closure()
            #expect(refused.code == .internalError)
            #expect(refused.reason == "actor.not_found")
        }
    }

    @Test("Actions queued behind the one that destroyed the actor get actor.not_found, not a run")
    func queuedAfterDestroy() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let socket = try await server.connectRaw(ProbeActor.connectPath(key: "queue"))
            _ = try await socket.initialized()
            try await socket.send(.actionRequest(id: 1, name: "destroySelf", args: []))
            try await socket.send(.actionRequest(id: 2, name: "increment", args: [1]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 1, output: "bye"))
            let second = try await socket.nextEvent()
            switch second {
            case .message(let message):
                guard case .error(let error, 2)? = try? RivetMessageCodec.decodeServerMessage(message.text ?? "") else {
                    Issue.record("expected an error for action 2, got \(message)")
                    return
                }
                #expect(error.group == "actor" && error.code == "not_found")
            case .closed(let closure):
                // The close may come first; then the action never ran either.
                #expect(closure.code == .normal)
            }
            #expect(!probe.events.contains("increment"))
        }
    }

    @Test("DELETE /actors/{id} answers 200 {} and runs onDestroy; an unknown id is actor.not_found with 400")
    func deleteRoute() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await ProbeActor.create(server, key: "deleted")
            let deleted = await server.request(.DELETE, "/actors/\(id)")
            #expect(deleted.status == 200)
            #expect(try JSONValue(parsing: deleted.body) == [:])
            #expect(probe.events.last == "onDestroy")
            #expect(try await server.core.directory.find(id: id) == nil)
            let unknown = await server.request(.DELETE, "/actors/\(id)")
            #expect(unknown.status == 400)
            #expect(try JSONValue(parsing: unknown.body)["code"] == "not_found")
            // The same key makes a fresh actor: new state, onCreate again.
            let fresh = try await ProbeActor.create(server, key: "deleted")
            #expect(fresh != id)
            #expect(try await server.httpAction(actorId: fresh, "getCount").body == ["output": 0])
            #expect(probe.events.filter { $0 == "onCreate" }.count == 2)
        }
    }
}

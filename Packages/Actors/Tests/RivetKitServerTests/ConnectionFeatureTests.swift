import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Testing

@Suite("Connections: typed params, connection state, context.connections, send and disconnect")
struct ConnectionFeatureTests {
    @Test("Each connection has the state createConnState made from its own params, kept across its actions")
    func statePerConnection() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let path = ProbeActor.connectPath(key: "room")
            let alice = try await server.connectRaw(path, params: #"{"user":"alice"}"#)
            let bob = try await server.connectRaw(path, params: #"{"user":"bob"}"#)
            _ = try await alice.initialized()
            _ = try await bob.initialized()
            #expect(try await alice.call(1, "whoAmI") == "alice")
            #expect(try await bob.call(1, "whoAmI") == "bob")
            #expect(try await alice.call(2, "countCall") == 1)
            #expect(try await alice.call(3, "countCall") == 2)
            #expect(try await bob.call(2, "countCall") == 1)
            #expect(probe.events.contains("onConnect alice") && probe.events.contains("onConnect bob"))
        }
    }

    @Test("Params that do not decode as createConnState's type, or that onBeforeConnect refuses, close the connection with that error")
    func refusedParams() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let path = ProbeActor.connectPath(key: "strict")
            let wrong = try await server.connectRaw(path, params: #"{"user":5}"#)
            let closure = try await wrong.closure()
            #expect(closure.code == .internalError)
            #expect(closure.reason == "request.invalid_params")
            let mallory = try await server.connectRaw(path, params: #"{"user":"mallory"}"#)
            #expect(try await mallory.closure().reason == "auth.forbidden")
            #expect(!probe.events.contains { $0.hasPrefix("onConnect") })
        }
    }

    @Test("context.connections lists the live connections; connection.send reaches only its target, subscribed or not")
    func connectionsAndSend() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let path = ProbeActor.connectPath(key: "pokes")
            let alice = try await server.connectRaw(path, params: #"{"user":"alice"}"#)
            let aliceId = try await alice.initialized()
            let bob = try await server.connectRaw(path, params: #"{"user":"bob"}"#)
            let bobId = try await bob.initialized()
            #expect(try await alice.call(1, "connections") == .array([.string(aliceId), .string(bobId)]))

            try await alice.send(.actionRequest(id: 2, name: "poke", args: [.string(bobId), "hi"]))
            // Alice's next frame is her answer, not the event.
            #expect(try await alice.nextMessage() == .actionResponse(id: 2, output: true))
            #expect(try await bob.nextMessage() == .event(name: "poked", args: ["hi", .string(aliceId)]))
        }
    }

    @Test("connection.disconnect(reason:) closes that connection with 1000 and the reason, without an error frame; onDisconnect runs")
    func disconnect() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let path = ProbeActor.connectPath(key: "kicks")
            let alice = try await server.connectRaw(path, params: #"{"user":"alice"}"#)
            let aliceId = try await alice.initialized()
            let bob = try await server.connectRaw(path, params: #"{"user":"bob"}"#)
            let bobId = try await bob.initialized()
            #expect(try await alice.call(1, "kick", [.string(bobId), "see you"]) == true)
            // The close is the next thing Bob gets: no Error frame before it.
            let event = try await bob.nextEvent()
            guard case .closed(let closure) = event else {
                Issue.record("expected the close, got \(event)")
                return
            }
            #expect(closure.code == .normal)
            #expect(closure.reason == "see you")
            try await waitUntil("Bob has gone") { probe.events.contains("onDisconnect bob") }
            #expect(try await alice.call(2, "connections") == .array([.string(aliceId)]))
        }
    }

    @Test("An HTTP action's connection is among context.connections while it runs, with its own state from x-rivet-conn-params")
    func httpConnection() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await ProbeActor.create(server, key: "http")
            let socket = try await server.connectRaw(ProbeActor.connectPath(key: "http"))
            _ = try await socket.initialized()
            let answer = try await server.httpAction(actorId: id, "whoAmI", headers: ["x-rivet-conn-params": #"{"user":"carol"}"#])
            #expect(answer.body == ["output": "carol"])
            let listed = try await server.httpAction(actorId: id, "connections")
            #expect(listed.body["output"]?.arrayValue?.count == 2)
        }
    }
}

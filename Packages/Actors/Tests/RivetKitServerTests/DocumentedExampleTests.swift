import Foundation
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Testing

/// The example of docs/actors.md ("Vars, connections, lifecycle, …"), as written there.
enum DocumentedRoom {
    struct Room: Codable, Sendable { var messages = 0 }
    struct Params: Decodable, Sendable { var user: String }
    struct Member: Sendable { var user: String; var sent = 0 }
    final class Cache: Sendable { let started = ContinuousClock.now }

    static let room = ActorDefinition("room", initialState: Room())
        .options(ActorDefinitionOptions(sleepTimeout: .seconds(60), actionTimeout: .seconds(5)))
        .onCreate { context in context.state.messages = 0 }
        .createVars { _ in Cache() }
        .onWake { context in _ = context.actorId }
        .onSleep { context in _ = context.state.messages }
        .onDestroy { _ in }
        .onStateChange { _, state in _ = state.messages }
        .createConnState { (_, params: Params) in Member(user: params.user) }
        .onConnect { (context: inout ActorLifecycleContext<Room>, connection: ActorConn) in
            try context.broadcast("joined", try connection.state(as: Member.self).user)
        }
        .action("say") { (context: inout ActorContext<Room>, text: String) in
            var member = try context.connection.state(as: Member.self)
            member.sent += 1
            context.connection.state = member
            context.state.messages += 1
            for other in context.connections where other.id != context.connection.id {
                try other.send("said", member.user, text)
            }
            return member.sent
        }
        .action("close") { context in context.destroy(); return true }
}

@Suite("The documented actor example")
struct DocumentedExampleTests {
    @Test("The room of docs/actors.md counts each member's messages and sends them to the other members only")
    func room() async throws {
        var registry = ActorRegistry()
        registry.register(DocumentedRoom.room)
        try await InProcessServer.with(registry: registry) { server in
            let path = "/gateway/room/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=lobby"
            let ann = try await server.connectRaw(path, params: #"{"user":"ann"}"#)
            _ = try await ann.initialized()
            let ben = try await server.connectRaw(path, params: #"{"user":"ben"}"#)
            _ = try await ben.initialized()
            #expect(try await ann.call(1, "say", ["hello"]) == 1)
            #expect(try await ann.call(2, "say", ["again"]) == 2)
            #expect(try await ben.nextMessage() == .event(name: "said", args: ["ann", "hello"]))
            #expect(try await ben.nextMessage() == .event(name: "said", args: ["ann", "again"]))
            #expect(try await ben.call(1, "close") == true)
            #expect(try await ann.closure().code == .normal)
        }
    }
}

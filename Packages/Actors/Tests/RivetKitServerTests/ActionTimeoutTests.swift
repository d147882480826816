import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Testing

@Suite("Action timeout: actor.action_timed_out past actionTimeout")
struct ActionTimeoutTests {
    static let options = ActorDefinitionOptions(actionTimeout: .milliseconds(100))

    @Test("Over a realtime connection an action past actionTimeout gets an Error frame for its id; the connection stays and serves the next")
    func realtime() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry(Self.options)) { server in
            let socket = try await server.connectRaw(ProbeActor.connectPath(key: "slow"))
            _ = try await socket.initialized()
            let error = await #expect(throws: ActorError.self) { try await socket.call(7, "block") }
            #expect(error?.group == "actor")
            #expect(error?.code == "action_timed_out")
            #expect(error?.message == "Action timed out")
            #expect(try await socket.call(8, "increment", [1]) == 1)
        }
    }

    @Test("Over HTTP an action past actionTimeout is answered 408 actor.action_timed_out; the actor serves the next")
    func http() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry(Self.options)) { server in
            let id = try await ProbeActor.create(server, key: "slow-http")
            let answer = try await server.httpAction(actorId: id, "block")
            #expect(answer.status == 408)
            #expect(answer.body["group"] == "actor")
            #expect(answer.body["code"] == "action_timed_out")
            #expect(answer.body["message"] == "Action timed out")
            #expect(try await server.httpAction(actorId: id, "increment", args: [2]).body == ["output": 2])
        }
    }

    @Test("The server's actionTimeout applies to types that set none")
    func serverSetting() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry(), configure: { $0.actionTimeout = .milliseconds(100) }) { server in
            let id = try await ProbeActor.create(server, key: "server-wide")
            #expect(try await server.httpAction(actorId: id, "block").status == 408)
        }
    }
}

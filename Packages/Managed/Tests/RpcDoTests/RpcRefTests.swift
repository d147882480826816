import CapnWeb
import Foundation
import RpcDo
import Testing

@Suite("RpcRef over a real socket")
struct RpcRefTests {
    struct User: Codable, Equatable {
        var id: String
        var name: String
    }

    @Test("a pipelined chain resolves to the nested member in one await")
    func pipelinedChain() async throws {
        let server = FaultyServer()
        try await server.run { url in
            try await RpcClient.withConnection(to: url) { client in
                let name: String = try await client.api.users.get(id: "123").profile.displayName
                #expect(name == "Display 123")
                let user: User = try await client.api.users.get(id: "7")
                #expect(user == User(id: "7", name: "User 7"))
                let square: Int = try await client.api.square(n: 9)
                #expect(square == 81)
            }
        }
    }

    @Test("expressionString shows members, calls with labels and subscripts")
    func expressionString() throws {
        let client = try RpcClient(url: "ws://127.0.0.1:1/rpc")
        let ref: RpcRef<Any> = client.api.users.get(id: "123").profile.displayName
        #expect(ref.expressionString == ".users.get(id: \"123\").profile.displayName")
        #expect(client.api.users.all[0].expressionString == ".users.all[0]")
        #expect(client.api.users["abc-123"].list(limit: 10, true).expressionString == ".users[\"abc-123\"].list(limit: 10, true)")
    }
}

import RpcDo
import Testing

/// Awaiting with no type written: each form is sent (the server counts what it ran) and gives
/// the answer as an `RpcValue`, or discards it when the call is a statement; its errors surface.
@Suite("Untyped awaits send")
struct UntypedAwaitTests {
    @Test("let result = try await api.echo(...) sends the call and gives the answer as an RpcValue")
    func untypedLetCall() async throws {
        try await ClientFeatureTests.withClient { client, server in
            let api = client.api
            let result = try await api.echo(message: "Hello, RpcDo!")
            #expect(result == .string("Hello, RpcDo!"))
            #expect(server.service.calls("echo") == 1)

            let user = try await client.api.users.get(id: "7")
            #expect(user == .object(["id": .string("7"), "name": .string("User 7"),
                                     "profile": .object(["displayName": .string("Display 7")])]))
            #expect(server.service.calls("users.get") == 1)
        }
    }

    @Test("async let with no type sends member reads and calls, concurrently")
    func untypedAsyncLet() async throws {
        try await ClientFeatureTests.withClient { client, server in
            async let user = client.api.users.current
            async let version = client.api.version
            async let count = client.api.increment()
            let (u, v, n) = try await (user, version, count)
            #expect(u == .object(["id": .string("me"), "name": .string("Me")]))
            #expect(v == .string("1.0"))
            #expect(n == .int(1))
            #expect(server.service.calls("increment") == 1)
        }
    }

    @Test("a bare try await call statement is sent and its answer discarded")
    func bareStatement() async throws {
        try await ClientFeatureTests.withClient { client, server in
            try await client.api.increment()
            try await client.api.increment()
            try await client.api.users.profileName(id: "1")
            #expect(server.service.calls("increment") == 2)
            #expect(server.service.calls("users.profileName") == 1)
        }
    }

    @Test("errors surface from an untyped let, an untyped async let and a bare statement")
    func errorsSurface() async throws {
        try await ClientFeatureTests.withClient { client, server in
            await #expect(throws: RpcError.notFound("failed with NotFound")) {
                let result = try await client.api.fail("NotFound")
                Issue.record("expected a failure, got \(result)")
            }
            await #expect(throws: RpcError.notFound("no user missing")) {
                async let user = client.api.users.get(id: "missing").name
                _ = try await user
            }
            await #expect(throws: RpcError.remote(type: "TypeError", message: "'delete' is not a function.")) {
                try await client.api.users.delete(id: "123")
            }
            #expect(server.service.calls("fail") == 1)
            #expect(server.service.calls("users.get") == 1)
            #expect(server.service.calls("users.delete") == 1)
        }
    }

    @Test("untyped subscripts, timeout, idempotent and map are sent")
    func untypedOptionsAndSubscripts() async throws {
        try await ClientFeatureTests.withClient { client, server in
            let second = try await client.api.list(n: 3)[1]
            #expect(second == .int(2))
            let slow = try await client.api.slow(10).timeout(.seconds(5))
            #expect(slow == .string("done"))
            try await client.api.increment().idempotent()
            #expect(server.service.calls("increment") == 1)
            let names = try await client.api.users.list().map { user in client.api.users.profileName(id: user.id) }
            #expect(names == .array([.string("Profile of 1"), .string("Profile of 2"), .string("Profile of 3")]))
            #expect(server.service.calls("users.profileName") == 3)
            let squares: [Int] = try await client.api.list(n: 3).map { x in client.api.square(n: x) }
            #expect(squares == [1, 4, 9])
            #expect(server.service.calls("list") == 2)
        }
    }

    @Test("member reads, subscripts and calls used as arguments stay refs, resolved on the server")
    func argumentsStayRefs() async throws {
        try await ClientFeatureTests.withClient { client, server in
            let argument: RpcArgument = client.api.users.get(id: "5").id
            #expect((argument as? RpcRef<Any>)?.expressionString == #".users.get(id: "5").id"#)
            let element: RpcArgument = client.api.list(n: 3)[2]
            #expect((element as? RpcRef<Any>)?.expressionString == ".list(n: 3)[2]")
            let call: RpcArgument = await client.api.echo("5")
            #expect((call as? RpcRef<Any>)?.expressionString == #".echo("5")"#)
            #expect(server.service.calls("users.get") == 0)
            #expect(server.service.calls("echo") == 0)

            let name = try await client.api.users.profileName(id: client.api.users.get(id: "5").id)
            #expect(name == .string("Profile of 5"))
            let square = try await client.api.square(n: client.api.list(n: 3)[2])
            #expect(square == .int(9))
            let echoed = try await client.api.users.profileName(id: client.api.echo("6"))
            #expect(echoed == .string("Profile of 6"))
            #expect(server.service.calls("echo") == 1)
        }
    }

    @Test("a typed ref and a chained base are still built without traffic")
    func refsWithoutTraffic() async throws {
        try await ClientFeatureTests.withClient { client, server in
            let ref: RpcRef<Any> = client.api.users.get(id: "1").profile
            let typed: RpcRef<String> = ref.displayName
            #expect(ref.expressionString == #".users.get(id: "1").profile"#)
            #expect(server.service.calls("users.get") == 0)
            let name: String = try await typed.resolved()
            #expect(name == "Display 1")
            #expect(server.service.calls("users.get") == 1)
        }
    }
}

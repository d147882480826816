import CapnWeb
import Foundation
import RpcDo
import Synchronization
import Testing

@Suite("RpcClient calls, values and errors")
struct ClientFeatureTests {
    static func withClient(
        interceptors: [any ClientInterceptor] = [],
        _ body: (RpcClient, InMemoryServer) async throws -> Void
    ) async throws {
        let server = InMemoryServer()
        var configuration = InMemoryServer.configuration()
        configuration.interceptors = interceptors
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        try await client.connect()
        do {
            try await body(client, server)
        } catch {
            await client.disconnect()
            throw error
        }
        await client.disconnect()
    }

    @Test("remote errors map to the seed's cases by name, with the message")
    func errorMapping() async throws {
        try await Self.withClient { client, _ in
            let cases: [(String, RpcError)] = [
                ("NotFound", .notFound("failed with NotFound")),
                ("NotImplemented", .notImplemented("failed with NotImplemented")),
                ("Unauthenticated", .authenticationFailed("failed with Unauthenticated")),
                ("AuthenticationError", .authenticationFailed("failed with AuthenticationError")),
                ("TypeError", .remote(type: "TypeError", message: "failed with TypeError")),
            ]
            for (name, expected) in cases {
                let outcome = await result { () async throws -> RpcValue in try await client.api.fail(name) }
                #expect(outcome == .failure(expected))
            }
        }
    }

    @Test("a broken pipeline fails every later step with the original error")
    func brokenPipeline() async throws {
        try await Self.withClient { client, _ in
            let authed: RpcRef<Any> = client.api.authenticate(token: "wrong")
            let outcome = await result { () async throws -> String in try await authed.get(id: "1").profile.displayName }
            #expect(outcome == .failure(.authenticationFailed("bad token")))
            let good: String = try await client.api.authenticate(token: "secret").get(id: "1").profile.displayName
            #expect(good == "Display 1")
        }
    }

    @Test("a chain of calls is sent as one pipelined request per await and each step runs once")
    func pipelining() async throws {
        try await Self.withClient { client, server in
            let name: String = try await client.api.authenticate(token: "secret").get(id: "9").name
            #expect(name == "User 9")
            #expect(server.service.calls("authenticate") == 1)
            #expect(server.service.calls("users.get") == 1)
        }
    }

    @Test("a ref passed as an argument is resolved on the server")
    func refArguments() async throws {
        try await Self.withClient { client, _ in
            let profile: String = try await client.api.users.profileName(id: client.api.users.get(id: "5").id)
            #expect(profile == "Profile of 5")
        }
    }

    @Test("map runs on the server, once per element, in the same round trip")
    func serverSideMap() async throws {
        try await Self.withClient { client, server in
            let squares: [Int] = try await client.api.list(n: 4).map { x in client.api.square(n: x) }
            #expect(squares == [1, 4, 9, 16])
            #expect(server.service.calls("list") == 1)
            #expect(server.service.calls("square") == 4)
            let names: [String] = try await client.api.users.list().map { user in
                client.api.users.profileName(id: user.id)
            }
            #expect(names == ["Profile of 1", "Profile of 2", "Profile of 3"])
            let ids: [String] = try await client.api.users.list().map { user in user.id }
            #expect(ids == ["1", "2", "3"])
            let elements: [Int] = try await client.api.list(n: 2).map { x in x }
            #expect(elements == [1, 2])
        }
    }

    @Test("a call returning a stream yields its elements as an AsyncThrowingStream")
    func streams() async throws {
        try await Self.withClient { client, _ in
            let ticks: AsyncThrowingStream<Int, any Error> = try await client.api.ticks(n: 3)
            var seen: [Int] = []
            for try await tick in ticks { seen.append(tick) }
            #expect(seen == [1, 2, 3])
        }
    }

    @Test("call(_:params:) reaches dotted methods, and a bad name is an invalid argument")
    func callByName() async throws {
        try await Self.withClient { client, _ in
            let user = try await client.call("users.get", params: [.string("4")])
            #expect(user == .object(["id": .string("4"), "name": .string("User 4"), "profile": .object(["displayName": .string("Display 4")])]))
            #expect(try await client.call("square", params: [.int(6)]) == .int(36))
            let bad = await result { try await client.call("users..get", params: []) }
            guard case .failure(.invalidArgument) = bad else {
                Issue.record("expected invalidArgument, got \(bad)")
                return
            }
            let response = await client.send(RpcRequest(id: "r1", method: "fail", params: [.string("NotFound")]))
            #expect(response.id == "r1")
            #expect(response.result == nil)
            #expect(response.error?.message == "not found: failed with NotFound")
        }
    }

    @Test("member reads, subscripts and discarded results resolve")
    func membersAndSubscripts() async throws {
        try await Self.withClient { client, server in
            let version: String = try await client.api.version
            #expect(version == "1.0")
            let current: String = try await client.api.users["current"].name
            #expect(current == "Me")
            let second: Int = try await client.api.list(n: 3)[1]
            #expect(second == 2)
            try await client.api.square(n: 2).resolved()
            #expect(server.service.calls("square") == 1)
        }
    }

    @Test("interceptors see every call in order, the first outermost, and can refuse a call")
    func interceptors() async throws {
        let log = CallLog()
        let interceptors: [any ClientInterceptor] = [
            LoggingInterceptor(name: "a", log: log), LoggingInterceptor(name: "b", log: log), DenyInterceptor(),
        ]
        try await Self.withClient(interceptors: interceptors) { client, server in
            let _: Int = try await client.api.square(n: 2)
            let _: String = try await client.api.users.get(id: "1").name
            #expect(log.all == [
                "a>.square(n: 2)", "b>.square(n: 2)", "b<.square(n: 2)", "a<.square(n: 2)",
                "a>.users.get(id: \"1\").name", "b>.users.get(id: \"1\").name",
                "b<.users.get(id: \"1\").name", "a<.users.get(id: \"1\").name",
            ])
            let denied = await result { () async throws -> RpcValue in try await client.api.forbidden() }
            #expect(denied == .failure(.authenticationFailed("denied by policy")))
            #expect(server.service.calls("forbidden") == 0)
        }
    }

    @Test("an argument that cannot be sent fails the await with invalidArgument and sends nothing")
    func badArgument() async throws {
        struct NotEncodable: Sendable {}
        try await Self.withClient { client, server in
            let outcome = await result { () async throws -> RpcValue in try await client.api.echo(NotEncodable()) }
            guard case .failure(.invalidArgument) = outcome else {
                Issue.record("expected invalidArgument, got \(outcome)")
                return
            }
            #expect(server.service.calls("echo") == 0)
        }
    }

    @Test("bad URLs are rejected with invalidArgument")
    func badURLs() async throws {
        for url in ["http://example.com", "example.com", "ws://", "", "ftp://host/x"] {
            #expect(throws: RpcError.self) { try RpcClient(url: url) }
            do {
                _ = try RpcClient(url: url)
            } catch {
                guard case .invalidArgument = error else {
                    Issue.record("expected invalidArgument for '\(url)', got \(error)")
                    continue
                }
            }
        }
        let client = RpcClient(configuration: RpcClientConfiguration(url: try #require(URL(string: "https://example.com"))))
        let outcome = await result { try await client.connect() }
        guard case .failure(.invalidArgument) = outcome else {
            Issue.record("expected invalidArgument, got \(outcome)")
            return
        }
        #expect(throws: Never.self) { _ = try RpcClient(url: "wss://api.example.com/rpc") }
    }

    @Test("the configuration has the seed's defaults")
    func configurationDefaults() throws {
        let configuration = RpcClientConfiguration(url: try #require(URL(string: "wss://api.example.com")))
        #expect(configuration.timeout == 30)
        #expect(configuration.maxRetries == 3)
        #expect(configuration.retryBaseDelay == 0.1)
        #expect(configuration.maxRetryDelay == 10)
        #expect(configuration.headers.isEmpty)
        #expect(configuration.offlinePolicy == .queue(limit: 256))
    }

    @Test("a batch sends the awaited calls in one HTTP request")
    func batch() async throws {
        try await withRpcServer(main: { TestService(state: ServiceState()) }) { server in
            // A generous quiet time keeps both `async let` calls in one batch on a loaded machine.
            let (square, name) = try await RpcClient.batch(
                url: server.batchURL.absoluteString, batchDelay: .milliseconds(250)
            ) { api in
                async let square: Int = api.square(n: 7)
                async let name: String = api.users.get(id: "2").name
                return try await (square, name)
            }
            #expect(square == 49)
            #expect(name == "User 2")
            await #expect(throws: RpcError.self) {
                try await RpcClient.batch(url: "ws://127.0.0.1:1/rpc") { _ in 1 }
            }
        }
    }
}

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Foundation
import RpcDoTesting
import RpcTransport
import Testing
import Tinyvex
import TinyvexServer

@Suite("Tinyvex client against the embedded server, over in-memory links", .timeLimit(.minutes(1)))
struct ClientTests {
    @Test("three local subscribers of one query share one upstream subscribe, and all three see a mutation")
    func dedupe() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let recorders = [ValueRecorder<[Message]>(), ValueRecorder<[Message]>(), ValueRecorder<[Message]>()]
            var cancellables: [AnyCancellable] = []
            for recorder in recorders {
                cancellables.append(client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
                    .sink(receiveCompletion: { completion in
                        if case .failure(let error) = completion { recorder.finish(error) } else { recorder.finish(nil) }
                    }, receiveValue: { recorder.record($0) }))
            }
            try await waitUntil("each subscriber has the first value") { recorders.allSatisfy { $0.values.count == 1 } }
            #expect(client.upstreamSubscriptionCount == 1)
            #expect(client.subscribeRequestCount == 1)
            #expect(await server.liveQueryCount == 1)
            let id = try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: "hi"), as: Int64.self)
            // Read-your-writes: the new value reached every local subscriber before the mutation returned.
            for recorder in recorders {
                #expect(recorder.values.last == [Message(id: id, channel: "general", author: "ann", text: "hi")])
            }
            cancellables.removeAll()
            await client.close()
        }
    }

    @Test("cancelling the last local subscriber unsubscribes upstream; cancelling one of several does not")
    func cancelUnsubscribes() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let recorder = ValueRecorder<[Message]>()
            var first: AnyCancellable? = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
                .sink(receiveCompletion: { _ in }, receiveValue: { recorder.record($0) })
            var second: AnyCancellable? = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
                .sink(receiveCompletion: { _ in }, receiveValue: { recorder.record($0) })
            try await waitUntil("the server holds the query") { await server.liveQueryCount == 1 && recorder.values.count == 2 }
            first?.cancel()
            first = nil
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "x"), as: Int64.self)
            #expect(await server.liveQueryCount == 1)
            #expect(recorder.values.count == 3)
            second?.cancel()
            second = nil
            try await waitUntil("the server dropped the query") { await server.liveQueryCount == 0 }
            #expect(client.upstreamSubscriptionCount == 0)
            await client.close()
        }
    }

    @Test("the async stream variant yields the current value then each change, and ending the iteration unsubscribes")
    func streamVariant() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            // The stream and its iterator live only inside this function: leaving it ends them.
            func readTwo() async throws -> [[Message]] {
                let stream: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
                var seen: [[Message]] = []
                for try await value in stream {
                    seen.append(value)
                    if seen.count == 1 {
                        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "b", text: "yo"), as: Int64.self)
                    } else {
                        break
                    }
                }
                return seen
            }
            let seen = try await readTwo()
            #expect(seen.first == [])
            #expect(seen.last?.map(\.text) == ["yo"])
            try await waitUntil("the server dropped the query") { await server.liveQueryCount == 0 }
            await client.close()
        }
    }

    @Test("a value that does not decode ends the publisher and the stream with .decoding")
    func decodingErrors() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let recorder = ValueRecorder<[String]>()
            let cancellable = client.subscribe("messages.list", params: Channel(channel: "general"), as: [String].self)
                .sink(receiveCompletion: { completion in
                    if case .failure(let error) = completion { recorder.finish(error) } else { recorder.finish(nil) }
                }, receiveValue: { recorder.record($0) })
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "c", text: "z"), as: Int64.self)
            try await waitUntil("the publisher failed") { recorder.finished }
            if case .decoding? = recorder.failure {} else { Issue.record("expected .decoding, got \(String(describing: recorder.failure))") }
            let stream: AsyncThrowingStream<Int, any Error> = client.subscribe("messages.list", params: Channel(channel: "general"), as: Int.self)
            await #expect(throws: TinyvexError.self) {
                for try await _ in stream {}
            }
            _ = cancellable
            await client.close()
        }
    }

    @Test("server errors arrive as .server with the Tinyvex code: an unknown query fails its publisher, a failing mutation throws")
    func serverErrors() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let stream: AsyncThrowingStream<Int, any Error> = client.subscribe("nothing", params: Channel(channel: "x"), as: Int.self)
            do {
                for try await _ in stream {}
                Issue.record("the stream should have failed")
            } catch let error as TinyvexError {
                guard case .server(let code, _, _) = error else { Issue.record("got \(error)"); return }
                #expect(code == "TVX002")
            }
            do {
                _ = try await client.mutation("nothing", args: Channel(channel: "x"), as: Int.self)
                Issue.record("the mutation should have failed")
            } catch let error as TinyvexError {
                guard case .server(let code, _, _) = error else { Issue.record("got \(error)"); return }
                #expect(code == "TVX003")
            }
            await client.close()
        }
    }

    @Test("an action runs and its result decodes; the connection state publisher reports connected")
    func actionAndState() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let states = ValueRecorder<String>()
            let cancellable = client.connectionState.sink { states.record("\($0)") }
            struct Later: Encodable { let channel: String; let author: String; let text: String; let delayMs: Int }
            let id = try await client.action("messages.sendLater", args: Later(channel: "g", author: "d", text: "t", delayMs: 5), as: Int64.self)
            #expect(id > 0)
            try await waitUntil("the state is connected") { states.values.last == "connected" }
            _ = cancellable
            await client.close()
        }
    }

    @Test("a value the server splits into transitionChunks arrives whole")
    func chunkedValue() async throws {
        try await withInMemoryServer(configuration: TinyvexServerConfiguration(maxChunkBytes: 100)) { server in
            let client = try makeClient(server)
            let long = String(repeating: "chunké/", count: 100)
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "f", text: long), as: Int64.self)
            let stream: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next()?.first?.text == long)
            await client.close()
        }
    }

    @Test("setAuthToken sends the token; a query that needs an identity sees it")
    func authToken() async throws {
        var schema = TinyvexDemoSchema.schema()
        struct None: Codable {}
        schema.query("whoami", requiresIdentity: true) { (context, _: None) in context.identity ?? "" }
        let configuration = TinyvexServerConfiguration(authenticate: { $0 == "good" ? "alice" : nil })
        try await withInMemoryServer(schema: schema, configuration: configuration) { server in
            let client = try makeClient(server)
            _ = try await client.mutation("messages.send", args: Send(channel: "g", author: "e", text: "t"), as: Int64.self)
            client.setAuthToken("good")
            let stream: AsyncThrowingStream<String, any Error> = client.subscribe("whoami", params: None(), as: String.self)
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == "alice")
            await client.close()
        }
    }

    @Test("a token set while the handshake waits for tinyvex/connect's answer is sent before the resubscriptions, so a query that needs an identity sees it")
    func tokenDuringHandshake() async throws {
        var schema = TinyvexDemoSchema.schema()
        struct None: Codable {}
        schema.query("whoami", requiresIdentity: true) { (context, _: None) in context.identity ?? "" }
        let configuration = TinyvexServerConfiguration(authenticate: { $0 == "good" ? "alice" : nil })
        try await withInMemoryServer(schema: schema, configuration: configuration) { server in
            server.holdConnectAnswers(1)
            let client = try makeClient(server)
            let stream: AsyncThrowingStream<String, any Error> = client.subscribe("whoami", params: None(), as: String.self)
            try await waitUntil("the connect answer to be held") { server.heldConnectAnswerCount == 1 }
            client.setAuthToken("good")
            server.releaseConnectAnswers()
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == "alice")
            #expect(Array(server.requestMethods.prefix(3)) == ["tinyvex/connect", "tinyvex/auth.setToken", "tinyvex/subscribe"])
            await client.close()
        }
    }

    @Test("withClient closes the client when its body throws: its subscription ends with a transport error, the server drops the query, and the client refuses calls")
    func scopedClientThrows() async throws {
        struct Stop: Error {}
        try await withInMemoryServer { server in
            let recorder = ValueRecorder<[Message]>()
            let endpoint = try #require(URL(string: "memory://tinyvex"))
            var scoped: TinyvexClient?
            var cancellable: AnyCancellable?
            do {
                try await TinyvexClient.withClient(endpoint: endpoint, configuration: fastConfiguration, transportFactory: server.factory) { client in
                    scoped = client
                    cancellable = client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
                        .sink(receiveCompletion: { completion in
                            if case .failure(let error) = completion { recorder.finish(error) } else { recorder.finish(nil) }
                        }, receiveValue: { recorder.record($0) })
                    try await waitUntil("the first value") { recorder.values.count == 1 }
                    #expect(await server.liveQueryCount == 1)
                    throw Stop()
                }
                Issue.record("the body's error was not rethrown")
            } catch is Stop {}
            guard case .transport? = recorder.failure else {
                Issue.record("expected a transport error, got \(String(describing: recorder.failure))")
                return
            }
            try await waitUntil("the server to drop the query") { await server.liveQueryCount == 0 }
            let client = try #require(scoped)
            await #expect(throws: TinyvexError.self) {
                _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "z", text: "late"), as: Int64.self)
            }
            #expect(server.mutationRequests.isEmpty)
            _ = cancellable
        }
    }

    @Test("withClient returns what its body returns, and closes the client")
    func scopedClientReturns() async throws {
        try await withInMemoryServer { server in
            let endpoint = try #require(URL(string: "memory://tinyvex"))
            let id = try await TinyvexClient.withClient(endpoint: endpoint, configuration: fastConfiguration, transportFactory: server.factory) { client in
                try await client.mutation("messages.send", args: Send(channel: "general", author: "y", text: "scoped"), as: Int64.self)
            }
            #expect(id > 0)
            try await waitUntil("the link to close") { server.ends.allSatisfy { $0.state.isClosed } }
        }
    }

    @Test("over a WebSocket to a listening server (the default transport): a subscription gets its value and a mutation's result")
    func overWebSocket() async throws {
        try await TinyvexServer.withServer(schema: TinyvexDemoSchema.schema(), port: 0) { server in
            let client = try makeClient(server.url)
            let stream: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == [])
            let id = try await client.mutation("messages.send", args: Send(channel: "general", author: "w", text: "socket"), as: Int64.self)
            #expect(try await iterator.next() == [Message(id: id, channel: "general", author: "w", text: "socket")])
            await client.close()
        }
    }
}

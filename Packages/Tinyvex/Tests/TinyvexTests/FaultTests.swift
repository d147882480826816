#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Foundation
import RpcDoTesting
import RpcTransport
import Synchronization
import Testing
import Tinyvex
import TinyvexServer

/// Subscribes to one channel and records every value.
func record(_ client: TinyvexClient, channel: String) -> (ValueRecorder<[Message]>, AnyCancellable) {
    let recorder = ValueRecorder<[Message]>()
    let cancellable = client.subscribe("messages.list", params: Channel(channel: channel), as: [Message].self)
        .sink(receiveCompletion: { completion in
            if case .failure(let error) = completion { recorder.finish(error) } else { recorder.finish(nil) }
        }, receiveValue: { recorder.record($0) })
    return (recorder, cancellable)
}

/// What `body` returned or threw.
func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

@Suite("Tinyvex fault matrix, over in-memory links", .timeLimit(.minutes(1)))
struct FaultTests {
    @Test("server restarted mid-subscription while the client is offline for three mutations: the client resumes with the newest value, nothing duplicated or out of order")
    func restartWhileOffline() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let server = InMemoryServer()
        try await server.start(database: database)
        let client = try makeClient(server)
        let (recorder, cancellable) = record(client, channel: "general")
        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "before"), as: Int64.self)
        #expect(recorder.values.map { $0.map(\.text) } == [[], ["before"]])
        try await server.stop()

        // Three mutations happen elsewhere while the subscriber cannot connect.
        try await withInMemoryServer(database: database) { other in
            let writer = try makeClient(other)
            for text in ["one", "two", "three"] {
                _ = try await writer.mutation("messages.send", args: Send(channel: "general", author: "w", text: text), as: Int64.self)
            }
            await writer.close()
        }

        try await server.start(database: database)
        try await waitUntil("the subscriber caught up") { recorder.values.last?.count == 4 }
        let texts = recorder.values.map { $0.map(\.text) }
        #expect(texts == [[], ["before"], ["before", "one", "two", "three"]])
        #expect(recorder.failure == nil)
        _ = cancellable
        await client.close()
        try await server.stop()
    }

    @Test("the link cut while a mutation's answer is held: the client resends it with the same requestId and it is applied exactly once")
    func linkCutMidMutation() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let (recorder, cancellable) = record(client, channel: "general")
            try await waitUntil("the first value") { recorder.values.count == 1 }
            server.holdMutationAnswers(1)
            async let sent = client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "once"), as: Int64.self)
            // The server ran the mutation and its answer is held: it is in flight.
            try await waitUntil("the mutation's answer to be held") { server.heldAnswers == 1 }
            #expect(server.mutationRequests.count == 1)
            server.cutLinks()
            let id = try await sent
            let requests = server.mutationRequests
            #expect(requests.count == 2)
            #expect(Set(requests).count == 1)
            try await waitUntil("the subscriber sees the message") { recorder.values.last?.isEmpty == false }
            #expect(recorder.values.map { $0.map(\.id) } == [[], [id]])
            _ = cancellable
            await client.close()
        }
    }

    @Test("server stopped while a mutation's answer is held: after the restart the resend is answered from the stored result, applied once")
    func restartMidMutation() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let server = InMemoryServer()
        try await server.start(database: database)
        let client = try makeClient(server)
        let (recorder, cancellable) = record(client, channel: "general")
        try await waitUntil("the first value") { recorder.values.count == 1 }
        server.holdMutationAnswers(1)
        async let sent = client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "once"), as: Int64.self)
        try await waitUntil("the mutation's answer to be held") { server.heldAnswers == 1 }
        try await server.stop()
        try await server.start(database: database)
        let id = try await sent
        #expect(Set(server.mutationRequests).count == 1)
        #expect(server.mutationRequests.count >= 2)
        try await waitUntil("the subscriber sees the message") { recorder.values.last?.isEmpty == false }
        #expect(recorder.values.last == [Message(id: id, channel: "general", author: "a", text: "once")])
        _ = cancellable
        await client.close()
        try await server.stop()
    }

    @Test("lastSeq equal after a restart re-sends nothing; ahead of an in-memory server that lost its state gets TVX004 and a fresh value, from which the client counts seqs again (the server does not move its version)")
    func lastSeqEqualAndAhead() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let server = InMemoryServer()
        try await server.start(database: database)
        let client = try makeClient(server)
        let (recorder, cancellable) = record(client, channel: "general")
        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "kept"), as: Int64.self)
        try await server.stop()
        try await server.start(database: database)
        // The reconnect resubscribed with lastSeq equal to the server's seq: nothing new arrives,
        // and a mutation afterwards still does.
        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "after"), as: Int64.self)
        #expect(recorder.values.map { $0.map(\.text) } == [[], ["kept"], ["kept", "after"]])
        try await server.stop()

        // A server in memory has never seen the client's seq (ahead).
        try await server.start(database: .inMemory)
        try await waitUntil("the fresh value from the new server") { recorder.values.last == [] }
        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "b", text: "fresh"), as: Int64.self)
        #expect(recorder.values.map { $0.map(\.text) } == [[], ["kept"], ["kept", "after"], [], ["fresh"]])
        #expect(recorder.failure == nil)
        _ = cancellable
        await client.close()
        try await server.stop()
    }

    @Test("an action in flight when the connection drops fails with a transport error and is not sent again (the server cancels it with its connection)")
    func actionLost() async throws {
        var schema = TinyvexDemoSchema.schema()
        let starts = Recorder<String>()
        struct Hold: Codable {}
        schema.action("hold") { (_, _: Hold) async throws -> Int in
            starts.append("started")
            // Runs until the server cancels it with its connection.
            try await Task.sleep(for: .seconds(60))
            return 1
        }
        try await withInMemoryServer(schema: schema) { server in
            let client = try makeClient(server)
            async let action = outcome { try await client.action("hold", args: Hold(), as: Int.self) }
            try await waitUntil("the action to run on the server") { starts.count == 1 }
            server.cutLinks()
            switch await action {
            case .success(let value):
                Issue.record("the action should have failed, got \(value)")
            case .failure(let error):
                guard case .transport? = error as? TinyvexError else {
                    Issue.record("expected a transport error, got \(error)")
                    break
                }
            }
            // The client did not send it again: after a round trip on the new link it still ran once.
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "next"), as: Int64.self)
            #expect(starts.count == 1)
            await client.close()
        }
    }

    @Test("a client whose reconnecting gave up connects again for its next subscription and call: the subscription gets its first value, the mutation runs")
    func gaveUpThenSubscribe() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let server = InMemoryServer()
        try await server.start(database: database)
        let client = try makeClient(server, configuration: TinyvexClientConfiguration(
            reconnect: .init(maxAttempts: 2, backoff: .exponential(base: .milliseconds(5), max: .milliseconds(10)))))
        let states = ValueRecorder<String>()
        let stateCancellable = client.connectionState.sink { states.record("\($0)") }
        let (first, firstCancellable) = record(client, channel: "general")
        try await waitUntil("the first value") { first.values == [[]] }
        try await waitUntil("connected") { states.values.last == "connected" }
        try await server.stop()
        // No server runs: the two reconnect attempts fail and the client gives up.
        try await waitUntil("the client gave up") { states.values.last?.hasPrefix("disconnected") == true }

        try await server.start(database: database)
        let (second, secondCancellable) = record(client, channel: "random")
        try await waitUntil("the new subscription's first value") { second.values == [[]] || second.finished }
        #expect(second.failure == nil)
        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "again"), as: Int64.self)
        // The earlier subscription was resubscribed by the new connection too.
        try await waitUntil("the earlier subscription's new value") { first.values.last?.map(\.text) == ["again"] || first.finished }
        #expect(first.failure == nil)
        _ = (stateCancellable, firstCancellable, secondCancellable)
        await client.close()
        try await server.stop()
    }

    @Test("a server that stops answering WebSocket pings is found dead by the keepalive and the client reconnects; the client never sends tinyvex/ping")
    func deadPeer() async throws {
        try await withInMemoryServer { server in
            let configuration = TinyvexClientConfiguration(
                reconnect: .init(maxAttempts: 100, backoff: .exponential(base: .milliseconds(10), max: .milliseconds(50))),
                heartbeatInterval: .milliseconds(50), deadConnectionTimeout: .milliseconds(150))
            let client = try makeClient(server, configuration: configuration)
            let states = ValueRecorder<String>()
            let cancellable = client.connectionState.sink { states.record("\($0)") }
            let (recorder, subscription) = record(client, channel: "general")
            try await waitUntil("the first value") { recorder.values.count == 1 }
            let first = try #require(server.ends.first)
            try await waitUntil("the keepalive to ping") { first.pingsReceived > 0 }
            // The server goes silent on this link: its pings go unanswered.
            first.setAnswersPings(false)
            try await waitUntil("the client to reconnect") { server.connects >= 2 && states.values.last == "connected" }
            #expect(states.values.contains { $0.hasPrefix("reconnecting") })
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "k", text: "alive"), as: Int64.self)
            #expect(recorder.values.last?.map(\.text) == ["alive"])
            #expect(!server.requestMethods.contains("tinyvex/ping"))
            _ = cancellable
            _ = subscription
            await client.close()
        }
    }

    @Test("a server that accepts and never answers the handshake: the first connection fails after the handshake timeout, and the next call connects once it answers")
    func silentServer() async throws {
        try await withInMemoryServer { server in
            server.setSilent(true)
            var configuration = fastConfiguration
            // Long enough that a loaded machine completes the second handshake in time; the
            // first one never completes however long it is given.
            configuration.handshakeTimeout = .seconds(2)
            let client = try makeClient(server, configuration: configuration)
            let (recorder, subscription) = record(client, channel: "general")
            try await waitUntil("the subscription to fail") { recorder.finished }
            guard case .transport? = recorder.failure else {
                Issue.record("expected a transport error, got \(String(describing: recorder.failure))")
                return
            }
            #expect(server.requestMethods == ["tinyvex/connect"])
            server.setSilent(false)
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "s", text: "late"), as: Int64.self)
            #expect(server.connects == 2)
            _ = subscription
            await client.close()
        }
    }

    @Test("a slow stream reader holds at most the newest 16 values, the last one being the newest")
    func slowConsumer() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let stream: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
            for index in 0..<60 {
                _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "s", text: "\(index)"), as: Int64.self)
            }
            var seen: [[Message]] = []
            for try await value in stream {
                seen.append(value)
                if value.count == 60 { break }
            }
            #expect(seen.count == 16)
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.count < $1.count })
            await client.close()
        }
    }
}

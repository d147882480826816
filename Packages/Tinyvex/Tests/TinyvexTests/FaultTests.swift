#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Foundation
import RpcTransport
import RpcTransportNIO
import Synchronization
import Testing
import Tinyvex
import TinyvexServer

/// Subscribes to one channel and records every value, checking the values only ever grow.
func record(_ client: TinyvexClient, channel: String) -> (Recorder<[Message]>, AnyCancellable) {
    let recorder = Recorder<[Message]>()
    let cancellable = client.subscribe("messages.list", params: Channel(channel: channel), as: [Message].self)
        .sink(receiveCompletion: { completion in
            if case .failure(let error) = completion { recorder.finish(error) } else { recorder.finish(nil) }
        }, receiveValue: { recorder.record($0) })
    return (recorder, cancellable)
}

@Suite("Tinyvex fault matrix", .timeLimit(.minutes(1)))
struct FaultTests {
    @Test("server restarted mid-subscription while the client is offline for three mutations: the client resumes with the newest value, nothing duplicated or out of order")
    func restartWhileOffline() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let schema = TinyvexDemoSchema.schema()
        var server = try await ServerHandle.start(schema: schema, database: database)
        let port = server.port
        let client = try makeClient(server.url)
        let (recorder, cancellable) = record(client, channel: "general")
        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "before"), as: Int64.self)
        #expect(recorder.values.map { $0.map(\.text) } == [[], ["before"]])
        try await server.stop()

        // Three mutations happen elsewhere while the subscriber cannot connect.
        let other = try await ServerHandle.start(schema: schema, database: database)
        let writer = try makeClient(other.url)
        for text in ["one", "two", "three"] {
            _ = try await writer.mutation("messages.send", args: Send(channel: "general", author: "w", text: text), as: Int64.self)
        }
        await writer.close()
        try await other.stop()

        server = try await ServerHandle.start(schema: schema, database: database, port: port)
        try await waitUntil("the subscriber caught up") { recorder.values.last?.count == 4 }
        let texts = recorder.values.map { $0.map(\.text) }
        #expect(texts == [[], ["before"], ["before", "one", "two", "three"]])
        #expect(recorder.failure == nil)
        _ = cancellable
        await client.close()
        try await server.stop()
    }

    @Test("server stopped mid-mutation: the client resends it with the same requestId after reconnecting and it is applied exactly once")
    func restartMidMutation() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        var schema = TinyvexDemoSchema.schema()
        schema.mutation("slowSend") { (context, args: Send) -> Int64 in
            Thread.sleep(forTimeInterval: 0.3)
            return try context.insert("messages", ["channel": .string(args.channel), "author": .string(args.author), "text": .string(args.text)])
        }
        var server = try await ServerHandle.start(schema: schema, database: database)
        let port = server.port
        let client = try makeClient(server.url)
        let (recorder, cancellable) = record(client, channel: "general")
        try await waitUntil("the first value") { recorder.values.count == 1 }
        async let sent = client.mutation("slowSend", args: Send(channel: "general", author: "a", text: "once"), as: Int64.self)
        try await Task.sleep(for: .milliseconds(100))
        try await server.stop()
        server = try await ServerHandle.start(schema: schema, database: database, port: port)
        let id = try await sent
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
        let schema = TinyvexDemoSchema.schema()
        var server = try await ServerHandle.start(schema: schema, database: database)
        var port = server.port
        let client = try makeClient(server.url)
        let (recorder, cancellable) = record(client, channel: "general")
        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "kept"), as: Int64.self)
        try await server.stop()
        server = try await ServerHandle.start(schema: schema, database: database, port: port)
        // The reconnect resubscribed with lastSeq equal to the server's seq: nothing new arrives,
        // and a mutation afterwards still does.
        _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "a", text: "after"), as: Int64.self)
        #expect(recorder.values.map { $0.map(\.text) } == [[], ["kept"], ["kept", "after"]])
        try await server.stop()

        // An in-memory server on the same port has never seen the client's seq (ahead).
        port = server.port
        server = try await ServerHandle.start(schema: schema, database: .inMemory, port: port)
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
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let schema = TinyvexDemoSchema.schema()
        var server = try await ServerHandle.start(schema: schema, database: database)
        let port = server.port
        let client = try makeClient(server.url)
        struct Later: Encodable { let channel: String; let author: String; let text: String; let delayMs: Int }
        let action = Task {
            try await client.action("messages.sendLater", args: Later(channel: "general", author: "a", text: "late", delayMs: 400), as: Int64.self)
        }
        try await Task.sleep(for: .milliseconds(100))
        try await server.stop()
        do {
            _ = try await action.value
            Issue.record("the action should have failed")
        } catch let error as TinyvexError {
            guard case .transport = error else { Issue.record("got \(error)"); return }
        }
        // The server cancelled the action with its connection, and the client did not send it
        // again: it never ran.
        server = try await ServerHandle.start(schema: schema, database: database, port: port)
        let stream: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == [])
        await client.close()
        try await server.stop()
    }

    @Test("a client whose reconnecting gave up connects again for its next subscription and call: the subscription gets its first value, the mutation runs")
    func gaveUpThenSubscribe() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let schema = TinyvexDemoSchema.schema()
        var server = try await ServerHandle.start(schema: schema, database: database)
        let port = server.port
        let client = try makeClient(server.url, configuration: TinyvexClientConfiguration(
            reconnect: .init(maxAttempts: 2, backoff: .exponential(base: .milliseconds(5), max: .milliseconds(10)))))
        let states = Recorder<String>()
        let stateCancellable = client.connectionState.sink { states.record("\($0)") }
        let (first, firstCancellable) = record(client, channel: "general")
        try await waitUntil("the first value") { first.values == [[]] }
        try await server.stop()
        // Nothing listens on the port: the two reconnect attempts fail and the client gives up.
        try await waitUntil("the client gave up") { states.values.last?.hasPrefix("disconnected") == true }

        server = try await ServerHandle.start(schema: schema, database: database, port: port)
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

    @Test("a silent server (accepts, never answers) is found dead by the heartbeat and the client reconnects")
    func silentServer() async throws {
        let connections = Atomic<Int>(0)
        try await withTransportServer(
            configuration: TransportServerConfiguration(address: .host("127.0.0.1", port: 0)),
            onConnection: { transport, _ in
                connections.add(1, ordering: .relaxed)
                do { for try await _ in transport.inboundMessages() {} } catch {}
            }
        ) { server in
            let configuration = TinyvexClientConfiguration(
                reconnect: .init(maxAttempts: 100, backoff: .exponential(base: .milliseconds(10), max: .milliseconds(50))),
                heartbeatInterval: .milliseconds(50), deadConnectionTimeout: .milliseconds(150))
            let client = try makeClient("ws://127.0.0.1:\(server.port ?? 0)/", configuration: configuration)
            let states = Recorder<String>()
            let cancellable = client.connectionState.sink { states.record("\($0)") }
            let (_, subscription) = record(client, channel: "general")
            try await waitUntil("the client reconnected twice") { connections.load(ordering: .relaxed) >= 3 }
            #expect(states.values.contains { $0.hasPrefix("reconnecting") })
            _ = cancellable
            _ = subscription
            await client.close()
        }
    }

    @Test("a slow stream reader holds at most the newest 16 values, the last one being the newest")
    func slowConsumer() async throws {
        try await withDemo { server in
            let client = try makeClient(server.url)
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

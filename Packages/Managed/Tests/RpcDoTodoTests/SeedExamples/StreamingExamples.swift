#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import RpcTesting
import Testing

/// The seed's "Streaming with AsyncSequence" examples. The demo server's streams are endless
/// (they carry what happens from then on), so each reader stops once it has what it waits for,
/// and the server ends its streams afterwards (a Cap'n Web reader that stops does not tell the
/// writer).
@Suite("Seed examples: streaming")
struct StreamingExamples {
    @Test("server-sent events arrive as an AsyncThrowingStream")
    func serverSentEvents() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()

            let events: AsyncThrowingStream<Event, any Error> = try await client.api
                .events
                .subscribe(topic: "notifications")

            let _: Event = try await client.api.events.publish(topic: "notifications", type: "ping", payload: "hello")
            var received: [String] = []
            for try await event in events {
                print("Received: \(event.type) - \(event.payload)")
                received.append(event.type)
                break  // Added: the stream is endless.
            }
            #expect(received == ["ping"])
            server.store.finishStreams()
            await client.disconnect()
        }
    }

    @Test("cancelling the consuming task ends the subscription", .timeLimit(.minutes(1)))
    func cancellation() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let started = AsyncStream<Void>.makeStream()

            let task = Task {
                let stream: AsyncThrowingStream<Event, any Error> = try await client.api.events.subscribe(topic: "updates")
                started.continuation.yield()  // Added: tells the test the subscription is open.

                for try await event in stream {
                    process(event)
                }
            }
            for await _ in started.stream { break }

            // Later: cancel the subscription
            task.cancel()  // Server-side subscription is also cancelled
            _ = await task.result  // Added: the consuming task ends (the test hangs otherwise).
            // Known gap: the server is not told. A Cap'n Web pipe keeps accepting writes after
            // its reader went away, so the server's stream stays open until the server ends it
            // (as here) or the connection closes.
            server.store.finishStreams()
            #expect(await waitUntil { server.store.subscriberCount == 0 })
            await client.disconnect()
        }
    }

    func process(_ event: Event) {
        print("event", event.type)
    }

    @Test("bidirectional streaming: receive a room's messages while sending to it")
    func bidirectionalStreaming() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()

            // Adapted: `join` is not awaited here: the room is a ref that later calls pipeline on
            // (held with its type, since in async code an untyped call is awaited).
            let chat: RpcRef<Any> = client.api.chat.join(room: "general")

            // Start receiving in background
            // Adapted: RpcDo yields streams from calls, so `messages` is called; the task reports
            // what it received instead of displaying it.
            let messages: AsyncThrowingStream<ChatMessage, any Error> = try await chat.messages()
            let receiver = Task {
                var texts: [String] = []
                for try await message in messages {
                    texts.append(message.text)  // displayMessage(message)
                    if texts.count == 2 { break }
                }
                return texts
            }

            // Send messages
            try await chat.send(text: "Hello everyone!")
            try await chat.send(text: "How's it going?")

            #expect(try await receiver.value == ["Hello everyone!", "How's it going?"])
            server.store.finishStreams()
            await client.disconnect()
        }
    }

    @Test("stream operators: filter, prefix and map work on the returned streams")
    func streamOperators() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()

            // Filter events client-side
            // Adapted: the stream's element type is written.
            let all: AsyncThrowingStream<Event, any Error> = try await client.api.events.subscribe(topic: "all")
            let importantEvents = all.filter { $0.priority == .high }

            // Deleting a todo publishes a high-priority event; creating one a normal one.
            let _: Todo = try await client.api.todos.create(title: "temporary")
            let _: Todo = try await client.api.todos.delete(id: "1")
            for try await event in importantEvents {
                #expect(event.type == "todo.deleted")
                break
            }

            // Take first N items
            // Adapted: the demo server keeps few error entries, so this takes 2, not 100.
            _ = try? await client.api.authenticate(token: "bad").userId.resolved()
            _ = try? await client.api.authenticate(token: "worse").userId.resolved()
            let errorLogs: AsyncThrowingStream<LogEntry, any Error> = try await client.api.logs.stream(level: LogLevel.error)
            let recentLogs = try await errorLogs
                .prefix(2)
                .reduce(into: []) { $0.append($1) }
            #expect(recentLogs.count == 2 && recentLogs.allSatisfy { $0.level == "error" })

            // Transform items
            let updates: AsyncThrowingStream<User, any Error> = try await client.api.users.streamUpdates()
            let userNames = updates.map { $0.displayName }
            let _: User = try await client.api.users.create(name: "Frank", email: "frank@example.com")
            for try await name in userNames {
                #expect(name == "Frank")
                break
            }
            server.store.finishStreams()
            await client.disconnect()
        }
    }
}

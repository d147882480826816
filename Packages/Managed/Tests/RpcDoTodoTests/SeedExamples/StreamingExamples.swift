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

    @Test("cancelling the consuming task ends the subscription, on the server too", .timeLimit(.minutes(1)))
    func cancellation() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let started = AsyncStream<Void>.makeStream()

            let task = Task {
                // Adapted: the stream's element type is written.
                let stream: AsyncThrowingStream<Event, any Error> = try await client.api.events.subscribe(topic: "updates")
                started.continuation.yield()  // Added: tells the test the subscription is open.

                for try await event in stream {
                    process(event)
                }
            }
            for await _ in started.stream { break }
            #expect(await waitUntil { server.store.subscriberCount == 1 })

            // Later: cancel the subscription
            task.cancel()  // Server-side subscription is also cancelled
            _ = await task.result  // Added: the consuming task ends (the test hangs otherwise).
            // Added: the server learns it at its next write (Cap'n Web has no message for a
            // reader that stops), which is rejected; its stream then closes, with no help from
            // the test (no finishStreams here).
            #expect(await serverClosesStreams(server) {
                let _: Event = try await client.api.events.publish(topic: "updates", type: "ping", payload: "after cancel")
            })
            await client.disconnect()
        }
    }

    func process(_ event: Event) {
        print("event", event.type)
    }

    @Test("bidirectional streaming: chat.messages is read as a stream while sending to the room")
    func bidirectionalStreaming() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()

            // Adapted: `join` is not awaited: the room is a ref that later calls pipeline on
            // (held with its type, since in async code an untyped call is awaited and gives a
            // value, not a ref).
            let chat: RpcRef<Any> = client.api.chat.join(room: "general")

            // Start receiving in background
            // Adapted: the task returns what it received instead of displaying it, and stops
            // after two messages (the room's stream is endless).
            let receiver = Task {
                var texts: [String] = []
                // Adapted: the element type is written (Swift cannot infer it from the loop's
                // body); `chat.messages` is an RpcStream, sent when the loop first reads.
                for try await message: ChatMessage in chat.messages {
                    texts.append(message.text)  // displayMessage(message)
                    if texts.count == 2 { break }
                }
                return texts
            }
            // Added: the stream is open before the messages are sent.
            #expect(await waitUntil { server.store.subscriberCount == 1 })

            // Send messages
            try await chat.send(text: "Hello everyone!")
            try await chat.send(text: "How's it going?")

            #expect(try await receiver.value == ["Hello everyone!", "How's it going?"])
            // The reader stopped: the server's stream closes at its next write.
            #expect(await serverClosesStreams(server) { try await chat.send(text: "Anyone?") })
            await client.disconnect()
        }
    }

    @Test("stream operators: filter, prefix with reduce, and map chain on the call as the seed writes them")
    func streamOperators() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()

            // Filter events client-side
            // Adapted: the closure names its parameter's type (Swift cannot infer the stream's
            // element type from `$0.priority == .high`).
            let importantEvents = try await client.api.events
                .subscribe(topic: "all")
                .filter { (event: Event) in event.priority == .high }

            // Deleting a todo publishes a high-priority event; creating one a normal one.
            let _: Todo = try await client.api.todos.create(title: "temporary")
            let _: Todo = try await client.api.todos.delete(id: "1")
            for try await event in importantEvents {
                #expect(event.type == "todo.deleted")
                break
            }

            // Take first N items
            // Adapted: the demo server keeps few error entries, so this takes 2, not 100;
            // `.error` is written `LogLevel.error` (arguments are not typed); `[]` is written
            // `[LogEntry]()`, which is what tells Swift the element type.
            _ = try? await client.api.authenticate(token: "bad").userId.resolved()
            _ = try? await client.api.authenticate(token: "worse").userId.resolved()
            let recentLogs = try await client.api.logs
                .stream(level: LogLevel.error)
                .prefix(2)
                .reduce(into: [LogEntry]()) { $0.append($1) }
            #expect(recentLogs.count == 2 && recentLogs.allSatisfy { $0.level == "error" })

            // Transform items
            // Adapted: the closure names its parameter's type.
            let userNames = try await client.api.users
                .streamUpdates()
                .map { (user: User) in user.displayName }
            let _: User = try await client.api.users.create(name: "Frank", email: "frank@example.com")
            for try await name in userNames {
                #expect(name == "Frank")
                break
            }

            // The operators apply to a stream-valued property too.
            server.store.finishStreams()
            #expect(await waitUntil { server.store.subscriberCount == 0 })
            let chat: RpcRef<Any> = client.api.chat.join(room: "ops")
            let shouts = chat.messages
                .filter { (message: ChatMessage) in message.text.hasSuffix("!") }
                .map { $0.text.uppercased() }
                .prefix(1)
            let reader = Task { try await shouts.reduce(into: [String]()) { $0.append($1) } }
            #expect(await waitUntil { server.store.subscriberCount == 1 })
            try await chat.send(text: "quiet")
            try await chat.send(text: "deploy now!")
            #expect(try await reader.value == ["DEPLOY NOW!"])
            server.store.finishStreams()
            await client.disconnect()
        }
    }
}

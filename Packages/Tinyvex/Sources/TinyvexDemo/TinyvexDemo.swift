#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Foundation
import RpcTransport
import Synchronization
import Tinyvex
import TinyvexServer

/// `make demo`'s Tinyvex step: an embedded server with the demo chat schema on a file, two
/// clients subscribed to the same query, a mutation from one seen by both, the server restarted
/// on the same port and both clients resuming from their `lastSeq` without a gap; then a
/// paginated list loaded page by page, a message scheduled by a mutation arriving in it, and a
/// send with an optimistic update, shown at once and then replaced by the server's value.
@main
struct TinyvexDemo {
    typealias Message = TinyvexDemoSchema.Message

    struct Channel: Encodable { let channel: String }
    struct Send: Encodable { let channel: String; let author: String; let text: String }
    struct Schedule: Encodable { let channel: String; let author: String; let text: String; let delayMs: Int }

    /// What one client has seen, printed as it arrives.
    final class Seen: Sendable {
        let name: String
        let values = Mutex<[[Message]]>([])

        init(_ name: String) { self.name = name }

        func add(_ value: [Message]) {
            values.withLock { $0.append(value) }
            // A negative id is the optimistic update's stand-in, shown before the server answers.
            print("  \(name) sees \(value.map { "\($0.author): \($0.text)\($0.id < 0 ? " (optimistic)" : "")" })")
        }

        var last: [Message]? { values.withLock { $0.last } }
    }

    static func main() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-demo-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let schema = TinyvexDemoSchema.schema()
        let ann = Seen("ann"), bob = Seen("bob")
        var cancellables: [AnyCancellable] = []
        var clients: [TinyvexClient] = []

        print("1. an embedded server with the chat schema, stored in SQLite (WAL)")
        let port = try await TinyvexServer.withServer(schema: schema, database: .file(path), port: 0) { server in
            print("   listening on \(server.url)")
            print("2. two clients subscribe to messages.list {channel: general}")
            for seen in [ann, bob] {
                let client = TinyvexClient(endpoint: try url(server.url), configuration: configuration)
                clients.append(client)
                cancellables.append(client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
                    .sink(
                        // Values arrive on the main queue (the client's default delivery).
                        receiveCompletion: { @Sendable completion in print("  \(seen.name)'s subscription ended: \(completion)") },
                        receiveValue: { @Sendable value in seen.add(value) }))
            }
            try await wait { ann.last != nil && bob.last != nil }
            print("3. ann sends a message; when the mutation returns her subscription already shows it")
            _ = try await clients[0].mutation("messages.send", args: Send(channel: "general", author: "ann", text: "hello"), as: Int64.self)
            print("   ann's last value has \(ann.last?.count ?? 0) message(s) as the mutation returns")
            try await wait { bob.last?.count == 1 }
            return server.port ?? 0
        }
        print("4. the server stops; bob sends while it is down (the mutation waits for the connection)")
        let bobClient = clients[1]
        // Owned here: awaited below, cancelled if the demo fails first.
        let sent = Task {
            try await bobClient.mutation("messages.send", args: Send(channel: "general", author: "bob", text: "sent while the server was down"), as: Int64.self)
        }
        defer { sent.cancel() }
        try await Task.sleep(for: .milliseconds(300))
        print("5. the server restarts on the same port and file; both clients resume from their lastSeq")
        try await TinyvexServer.withServer(schema: schema, database: .file(path), port: port) { _ in
            _ = try await sent.value
            try await wait { ann.last?.count == 2 && bob.last?.count == 2 }
            let gapless = [ann, bob].allSatisfy { seen in
                let counts = seen.values.withLock { $0.map(\.count) }
                return counts == Array(0...2)
            }
            print("   both saw 0, 1, then 2 messages, in order and once each: \(gapless)")
            if !gapless { throw DemoFailure() }
            try await pages(ann: clients[0], bob: clients[1], annSees: ann)
            try await optimisticSend(ann: clients[0], annSees: ann)
            cancellables.removeAll()
            for client in clients { await client.close() }
        }
        print("done")
    }

    /// Steps 6 and 7: ann pages through the channel two messages at a time; bob schedules a
    /// message, which arrives in her list and in her paginated list's last page.
    static func pages(ann: TinyvexClient, bob: TinyvexClient, annSees: Seen) async throws {
        for text in ["one", "two", "three"] {
            _ = try await ann.mutation("messages.send", args: Send(channel: "general", author: "ann", text: text), as: Int64.self)
        }
        print("6. ann pages through messages.page {channel: general}, two at a time (subscribePaginated, loadMore)")
        let paged = ann.subscribePaginated("messages.page", params: Channel(channel: "general"), initialNumItems: 2, as: Message.self)
        let shown = Mutex<TinyvexPaginatedResults<Message>?>(nil)
        let cancellable = paged.publisher.sink(
            receiveCompletion: { @Sendable completion in print("  the paginated list ended: \(completion)") },
            receiveValue: { @Sendable results in
                shown.withLock { $0 = results }
                print("  ann's pages show \(results.results.map(\.text)) (\(results.status))")
            })
        defer { cancellable.cancel() }
        try await wait { shown.withLock { $0?.status == .canLoadMore } }
        while paged.current.status == .canLoadMore {
            let loaded = shown.withLock { $0?.results.count ?? 0 }
            paged.loadMore(2)
            try await wait { shown.withLock { ($0?.results.count ?? 0) > loaded || $0?.status == .exhausted } }
            try await wait { shown.withLock { $0?.status == .canLoadMore || $0?.status == .exhausted } }
        }
        print("7. bob schedules a message for 300 ms from now (messages.schedule, a scheduled messages.send)")
        let id = try await bob.mutation(
            "messages.schedule", args: Schedule(channel: "general", author: "bob", text: "scheduled", delayMs: 300), as: String.self)
        print("   scheduled as \(id)")
        try await wait { annSees.last?.last?.text == "scheduled" && shown.withLock { $0?.results.last?.text == "scheduled" } }
        print("   it arrived: in ann's list and at the end of her last page")
        paged.cancel()
    }

    /// Step 8: ann sends a message with an optimistic update; her live `messages.list` shows it
    /// at once (with the stand-in id -1), before the server answers, then the server's value
    /// with the real id replaces it.
    static func optimisticSend(ann: TinyvexClient, annSees: Seen) async throws {
        print("8. ann sends with an optimistic update: her list shows the message at once, then the server's")
        let text = "sent optimistically"
        let seenBefore = annSees.values.withLock { $0.count }
        let id = try await ann.mutation("messages.send", args: Send(channel: "general", author: "ann", text: text), as: Int64.self) { store in
            let params = Channel(channel: "general")
            var messages = store.getQuery("messages.list", params: params, as: [Message].self) ?? []
            messages.append(Message(id: -1, channel: "general", author: "ann", text: text))
            store.setQuery("messages.list", params: params, value: messages)
        }
        try await wait { annSees.last?.last?.id == id }
        // The ids the new message had in each value ann saw since the send, in order.
        let ids = annSees.values.withLock { Array($0.dropFirst(seenBefore)) }.compactMap { value in value.last(where: { $0.text == text })?.id }
        let optimisticFirst = ids.first == -1 && ids.last == id
        print("   ann saw it with id \(ids.map(String.init).joined(separator: ", then ")): optimistic first, then the server's: \(optimisticFirst)")
        if !optimisticFirst { throw DemoFailure() }
    }

    struct DemoFailure: Error {}

    static let configuration = TinyvexClientConfiguration(
        reconnect: .init(maxAttempts: 100, backoff: .exponential(base: .milliseconds(50), max: .milliseconds(500))))

    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw DemoFailure() }
        return url
    }

    static func wait(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw DemoFailure() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

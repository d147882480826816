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
/// on the same port and both clients resuming from their `lastSeq` without a gap.
@main
struct TinyvexDemo {
    typealias Message = TinyvexDemoSchema.Message

    struct Channel: Encodable { let channel: String }
    struct Send: Encodable { let channel: String; let author: String; let text: String }

    /// What one client has seen, printed as it arrives.
    final class Seen: Sendable {
        let name: String
        let values = Mutex<[[Message]]>([])

        init(_ name: String) { self.name = name }

        func add(_ value: [Message]) {
            values.withLock { $0.append(value) }
            print("  \(name) sees \(value.map { "\($0.author): \($0.text)" })")
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
            cancellables.removeAll()
            for client in clients { await client.close() }
            if !gapless { throw DemoFailure() }
        }
        print("done")
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

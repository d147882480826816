import CapnWebTesting
import Foundation
import RpcDoTesting
import RpcTransportNIO
import Synchronization
import Testing
import Tinyvex
import TinyvexServer

@Suite("tinyvex serve as a process", .enabled(if: CommandProcess.isBuilt("tinyvex"), "needs the built tinyvex"))
struct ServeProcessTests {
    /// `tinyvex serve --demo` on free ports of 127.0.0.1 with `arguments` added, once it has
    /// announced its URL (`READY`) and, with `metrics`, its metrics endpoint (`METRICS`).
    static func start(_ arguments: [String] = [], metrics: Bool) async throws -> CommandProcess {
        try await CommandProcess.start(
            "tinyvex",
            ["serve", "--demo", "--host", "127.0.0.1", "--port", "0"] + arguments + (metrics ? ["--metrics-port", "0"] : []),
            announcing: metrics ? ["READY", "METRICS"] : ["READY"])
    }

    /// The sockets a client opened, to read how they closed.
    final class Sockets: Sendable {
        let opened = Mutex<[WebSocketTransport]>([])
    }

    /// A client of `server` over WebSockets kept in `sockets`, values delivered at once, that
    /// gives up after a few reconnects and 10 seconds per request.
    static func client(of server: CommandProcess, sockets: Sockets = Sockets()) throws -> TinyvexClient {
        let url = try #require(server.announcement("READY"))
        let configuration = TinyvexClientConfiguration(
            reconnect: ReconnectPolicy(maxAttempts: 3, backoff: .exponential(base: .milliseconds(20), max: .milliseconds(100))),
            requestTimeout: .seconds(10), delivery: .immediate)
        return TinyvexClient(endpoint: try #require(URL(string: url)), configuration: configuration) { _ in
            let socket = try await WebSocketClient.connect(to: url)
            sockets.opened.withLock { $0.append(socket) }
            return socket
        }
    }

    @Test("--metrics-port serves the transport's and Tinyvex's documented metrics at GET /metrics, counting the mutations and query runs, and SIGINT ends the process with 0")
    func metricsEndpoint() async throws {
        let server = try await Self.start(metrics: true)
        defer { server.kill() }
        let client = try Self.client(of: server)
        let general = Channel(channel: "general")
        let live: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: general, as: [Message].self)
        var messages = live.makeAsyncIterator()
        #expect(try await messages.next() == [])
        for index in 1 ... 3 {
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: "\(index)"), as: Int64.self)
        }
        let tooLong = Send(channel: "general", author: String(repeating: "a", count: TinyvexDemoSchema.maxNameBytes + 1), text: "-")
        do {
            _ = try await client.mutation("messages.send", args: tooLong, as: Int64.self)
            Issue.record("a message with a too long author was sent")
        } catch let error as TinyvexError {
            guard case .server(let code, _, _) = error else {
                Issue.record("not the server's refusal: \(error)")
                return
            }
            #expect(code == "TVX003")
        }
        #expect(try await client.query("messages.count", params: general, as: Int.self) == 3)

        let scrape = try await MetricsScrape.get(server.announcement("METRICS") ?? "-")
        #expect(scrape.status == 200)
        #expect(scrape.isWellFormed)
        // The names and types of docs/observability.md.
        let documented = MetricsScrape.transportFamilies.merging([
            "tinyvex_mutations_started_total": "counter", "tinyvex_mutations_succeeded_total": "counter",
            "tinyvex_mutations_failed_total": "counter", "tinyvex_mutations_duration_seconds": "histogram",
            "tinyvex_query_evaluations_started_total": "counter", "tinyvex_query_evaluations_succeeded_total": "counter",
            "tinyvex_query_evaluations_duration_seconds": "histogram", "tinyvex_subscriptions_live": "gauge",
        ]) { _, new in new }
        #expect(scrape.mistyped(documented) == [])
        let send = ["protocol": "tinyvex", "method": "messages.send"]
        #expect(scrape.value("tinyvex_mutations_started_total", send) == 4)
        #expect(scrape.value("tinyvex_mutations_succeeded_total", send) == 3)
        #expect(scrape.value("tinyvex_mutations_failed_total", send) == 1)
        #expect(scrape.value("tinyvex_mutations_duration_seconds_count", send) == 4)
        // The subscription's first run and a run after each of the three commits, at least.
        #expect(scrape.value("tinyvex_query_evaluations_started_total", ["protocol": "tinyvex", "method": "messages.list"]) >= 4)
        #expect(scrape.value("tinyvex_query_evaluations_succeeded_total", ["method": "messages.count"]) == 1)
        #expect(scrape.value("tinyvex_subscriptions_live") == 1)
        #expect(scrape.value("rpc_transport_websockets_open") == 1)
        #expect(scrape.value("rpc_transport_bytes_received_total") > 0)
        // The subscription lives as long as its iterator.
        withExtendedLifetime(messages) {}

        await client.close()
        server.interrupt()
        #expect(await server.waitForExit() == 0)
    }

    @Test("SIGTERM while 100 mutations are in flight: each is answered or fails with a TinyvexError, the socket closes with 1001, the process exits 0, and every answered message is in the database when it serves again")
    func sigtermDuringMutations() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        guard case .file(let path) = database else {
            Issue.record("not a file: \(database)")
            return
        }
        let server = try await Self.start(["--db", path], metrics: false)
        defer { server.kill() }
        let sockets = Sockets()
        let client = try Self.client(of: server, sockets: sockets)
        let general = Channel(channel: "general")
        #expect(try await client.query("messages.count", params: general, as: Int.self) == 0)
        guard let socket = sockets.opened.withLock({ $0.first }) else {
            Issue.record("the client opened no socket")
            return
        }

        let outcomes = try await withTimeLimit(.seconds(60), "the 100 mutations") {
            try await withThrowingTaskGroup(of: Result<Int64, TinyvexError>?.self) { mutations in
                for index in 0 ..< 100 {
                    mutations.addTask {
                        do {
                            let send = Send(channel: "general", author: "ann", text: "\(index)")
                            return .success(try await client.mutation("messages.send", args: send, as: Int64.self))
                        } catch let error as TinyvexError {
                            return .failure(error)
                        } catch {
                            Issue.record("a mutation failed with an error that is not a TinyvexError: \(error)")
                            return nil
                        }
                    }
                }
                // The first answer has come: the others are on their way, read or queued.
                var outcomes: [Result<Int64, TinyvexError>?] = []
                if let first = try await mutations.next() { outcomes.append(first) }
                server.terminate()
                for try await outcome in mutations { outcomes.append(outcome) }
                return outcomes
            }
        }

        #expect(outcomes.count == 100)
        var answered: Set<Int64> = []
        for outcome in outcomes {
            switch outcome {
            case .success(let id)?: answered.insert(id)
            case .failure(.transport)?, nil: break
            case .failure(let error)?: Issue.record("not the connection's loss: \(error)")
            }
        }
        // The server answers every request it has read before it closes: only a mutation sent
        // after its drain had ended may fail (with the connection's loss). A server that closed
        // with read requests still unanswered failed nearly all of them.
        #expect(answered.count > 50, "\(answered.count) of 100 answered")
        #expect(await server.waitForExit() == 0)
        let closure = try await withTimeLimit(.seconds(10), "the socket's close") { await socket.waitUntilClosed() }
        #expect(closure.code == .goingAway)
        await client.close()

        // Every answered mutation was committed.
        let again = try await Self.start(["--db", path], metrics: false)
        defer { again.kill() }
        let reader = try Self.client(of: again)
        let kept = try await reader.query("messages.list", params: general, as: [Message].self)
        #expect(answered.isSubset(of: Set(kept.map(\.id))))
        #expect(kept.count <= 100)
        await reader.close()
        again.terminate()
        #expect(await again.waitForExit() == 0)
    }
}

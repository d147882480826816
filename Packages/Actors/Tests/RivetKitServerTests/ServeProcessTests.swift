import CapnWebTesting
import RivetKit
import RpcDoTesting
import RpcTransportNIO
import Synchronization
import Testing

@Suite("rivetkit serve as a process", .enabled(if: CommandProcess.isBuilt("rivetkit"), "needs the built rivetkit"))
struct ServeProcessTests {
    /// `rivetkit serve --demo` on free ports of 127.0.0.1, once it has announced its endpoint
    /// (`READY`) and, with `metrics`, its metrics endpoint (`METRICS`).
    static func start(metrics: Bool) async throws -> CommandProcess {
        try await CommandProcess.start(
            "rivetkit", ["serve", "--demo", "--host", "127.0.0.1", "--port", "0"] + (metrics ? ["--metrics-port", "0"] : []),
            announcing: metrics ? ["READY", "METRICS"] : ["READY"])
    }

    /// The sockets a client opened, to read how they closed.
    final class Sockets: Sendable {
        let opened = Mutex<[WebSocketTransport]>([])
    }

    /// A client of `server`, whose realtime sockets are kept in `sockets`, and whose actions give
    /// up after 10 seconds instead of 60.
    static func client(of server: CommandProcess, sockets: Sockets = Sockets()) -> RivetKitClient {
        var config = ClientConfig(
            endpoint: server.announcement("READY") ?? "-", token: nil, namespace: "default", disableMetadataLookup: true)
        config.reconnectBackoff = Backoff(initialDelay: .milliseconds(50), maxDelay: .milliseconds(200))
        config.actionTimeout = .seconds(10)
        let network = ClientTransports.network
        let transports = ClientTransports(
            openSocket: { url, subprotocols in
                var configuration = WebSocketClientConfiguration()
                configuration.subprotocols = subprotocols
                let socket = try await WebSocketClient.connect(to: url, configuration: configuration)
                sockets.opened.withLock { $0.append(socket) }
                return (socket, socket.subprotocol)
            },
            makeHTTPClient: network.makeHTTPClient)
        return RivetKitClient(config, transports: transports)
    }

    @Test("--metrics-port serves the transport's and RivetKit's documented metrics at GET /metrics, counting the actions run, and SIGINT ends the process with 0")
    func metricsEndpoint() async throws {
        let server = try await Self.start(metrics: true)
        defer { server.kill() }
        let client = Self.client(of: server)
        let counter = client.getOrCreate("counter", key: ["metrics"])
        for expected in 1 ... 3 {
            #expect(try await counter.action("increment", args: [1]) == .integer(Int64(expected)))
        }
        do throws(ActorError) {
            _ = try await counter.action("fail", args: [])
            Issue.record("fail answered")
        } catch {
            #expect(error.code == "test_error")
        }
        await client.close()

        let scrape = try await MetricsScrape.get(server.announcement("METRICS") ?? "-")
        #expect(scrape.status == 200)
        #expect(scrape.isWellFormed)
        // The names and types of docs/observability.md.
        let documented = MetricsScrape.transportFamilies.merging([
            "rivetkit_actions_started_total": "counter", "rivetkit_actions_succeeded_total": "counter",
            "rivetkit_actions_failed_total": "counter", "rivetkit_actions_duration_seconds": "histogram",
            "rivetkit_actors_awake": "gauge",
        ]) { _, new in new }
        #expect(scrape.mistyped(documented) == [])
        let increment = ["protocol": "rivetkit", "method": "increment"]
        #expect(scrape.value("rivetkit_actions_started_total", increment) == 3)
        #expect(scrape.value("rivetkit_actions_succeeded_total", increment) == 3)
        #expect(scrape.value("rivetkit_actions_duration_seconds_count", increment) == 3)
        #expect(scrape.value("rivetkit_actions_started_total", ["method": "fail"]) == 1)
        #expect(scrape.value("rivetkit_actions_failed_total", ["protocol": "rivetkit", "method": "fail"]) == 1)
        #expect(scrape.value("rivetkit_actions_failed_total", ["method": "increment"]) == 0)
        #expect(scrape.value("rivetkit_actors_awake") == 1)
        #expect(scrape.value("rpc_transport_bytes_received_total") > 0)
        #expect(scrape.value("rpc_transport_bytes_sent_total") > 0)

        server.interrupt()
        #expect(await server.waitForExit() == 0)
    }

    @Test("SIGTERM while 100 actions of two realtime connections are in flight: each is answered or fails with an ActorError of the connection's loss, both sockets close with 1001 and the process exits 0")
    func sigtermDuringActions() async throws {
        let server = try await Self.start(metrics: false)
        defer { server.kill() }
        let sockets = Sockets()
        let client = Self.client(of: server, sockets: sockets)
        // Two connections to one counter, 50 actions each: under the server's 64 actions in
        // flight per connection (maxActionsInFlight), so every refusal is the shutdown's.
        let connections = [client.getOrCreate("counter", key: ["sigterm"]).connect(), client.getOrCreate("counter", key: ["sigterm"]).connect()]
        let counts = connections[0].events("newCount")
        for connection in connections {
            connection.start()
            #expect(try await connection.action("getCount", args: []) == 0)
        }
        let opened = sockets.opened.withLock { $0 }
        #expect(opened.count == 2)

        let outcomes = try await withTimeLimit(.seconds(60), "the 100 actions") {
            try await withThrowingTaskGroup(of: Result<JSONValue, ActorError>.self) { actions in
                for index in 0 ..< 100 {
                    let connection = connections[index % 2]
                    actions.addTask {
                        do throws(ActorError) {
                            return .success(try await connection.action("increment", args: [1]))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                // The server has run the first increment: the others are on their way or queued.
                var iterator = counts.makeAsyncIterator()
                _ = await iterator.next()
                server.terminate()
                var outcomes: [Result<JSONValue, ActorError>] = []
                for try await outcome in actions { outcomes.append(outcome) }
                return outcomes
            }
        }

        #expect(outcomes.count == 100)
        var answered: [Int64] = []
        for outcome in outcomes {
            switch outcome {
            case .success(.integer(let count)): answered.append(count)
            case .success(let other): Issue.record("increment answered \(other)")
            case .failure(let error):
                // Sent and lost with the connection, or still queued when the client gave up.
                #expect([.clientConnectionLost, .clientActionTimeout].contains(error.errorCode), "not the shutdown's failure: \(error)")
            }
        }
        // The actions of one actor run one at a time: the answered ones are the first counts.
        #expect(answered.sorted() == Array(1 ... Int64(answered.count)))
        // The server answers the actions it has read before it closes: only one sent after its
        // drain had ended may be lost.
        #expect(answered.count > 50, "\(answered.count) of 100 answered")
        #expect(await server.waitForExit() == 0)
        for socket in opened {
            let closure = try await withTimeLimit(.seconds(10), "the socket's close") { await socket.waitUntilClosed() }
            #expect(closure.code == .goingAway)
        }
        for connection in connections { await connection.dispose() }
        await client.close()
    }
}

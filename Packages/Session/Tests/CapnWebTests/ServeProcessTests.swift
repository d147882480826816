import Foundation
import Synchronization
import Testing
import RpcTransportTesting
import CapnWeb
import CapnWebTesting
import CapnWebTestSupport

/// `capnweb serve --demo` as a child process, with both ports free ones, once it has announced
/// its WebSocket URL (`READY`) and its metrics endpoint (`METRICS`).
private func startServer() async throws -> CommandProcess {
    try await CommandProcess.start(
        "capnweb", ["serve", "--demo", "--port", "0", "--metrics-port", "0"], announcing: ["READY", "METRICS"])
}

@Suite("capnweb serve as a process")
struct ServeProcessTests {
    @Test(
        "SIGTERM during 100 calls in flight: every call is answered, the session closes with 1001 and the process exits 0",
        .enabled(if: CommandProcess.isBuilt("capnweb"), "needs the built capnweb"))
    func sigtermDuringCalls() async throws {
        let server = try await startServer()
        defer { server.kill() }
        let ready = server.announcement("READY") ?? "-"
        guard let url = URL(string: ready) else {
            Issue.record("not a URL: \(ready)")
            return
        }
        try await withCheckedPeers { peers in
            let session = try await RpcSession<Any>.connect(to: url)
            peers.client(session)
            let ended = Mutex<(any Error)??>(nil)
            session.onDisconnect { error in ended.withLock { $0 = .some(error) } }
            let answers = try await withThrowingTaskGroup(of: Int.self) { calls in
                for index in 0..<100 {
                    calls.addTask {
                        let value: Int = try await session.api.delayed(500, index)
                        return value
                    }
                }
                // Answered after the server has read the 100 calls before it (one connection, in order).
                let four: Int = try await session.api.square(2)
                #expect(four == 4)
                server.terminate()
                var answers: Set<Int> = []
                for try await value in calls { answers.insert(value) }
                return answers
            }
            #expect(answers == Set(0..<100))
            #expect(await server.waitForExit() == 0)
            try await waitUntil("the session ended") { ended.withLock { $0 != nil } }
            #expect(closeCode(of: ended.withLock { $0 ?? nil }) == .goingAway)
        }
    }

    @Test(
        "--metrics-port serves Prometheus text at GET /metrics, and the process exits 0 on SIGINT",
        .enabled(if: CommandProcess.isBuilt("capnweb"), "needs the built capnweb"))
    func metricsEndpoint() async throws {
        let server = try await startServer()
        defer { server.kill() }
        let metrics = server.announcement("METRICS") ?? "-"
        let first = try await MetricsScrape.get(metrics)
        #expect(first.status == 200)
        #expect(first.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(first.isWellFormed)
        // The transport's documented metrics (observability.md), counting the scrape before.
        let again = try await MetricsScrape.get(metrics)
        #expect(again.isWellFormed)
        for name in ["rpc_transport_bytes_received_total", "rpc_transport_bytes_sent_total"] {
            #expect(again.type(of: name) == "counter", "\(name) missing")
            #expect(again.value(name) > 0, "\(name) did not count the first scrape")
        }
        let elsewhere = try await MetricsScrape.get(metrics.replacingOccurrences(of: "/metrics", with: "/other"))
        #expect(elsewhere.status == 404)
        server.interrupt()
        #expect(await server.waitForExit() == 0)
    }
}

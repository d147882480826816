import Foundation
import Synchronization
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

// Seed 001's "Resource Management": actor isolation, task cancellation, scoped sessions and
// connection monitoring.

/// What the seed's connection-monitoring UI functions were asked to show.
final class Banners: Sendable {
    let shown = Recorder<String>()

    func hideReconnectingBanner() { shown.append("hide") }
    func showReconnectingBanner(attempt: Int) { shown.append("reconnecting \(attempt)") }
    func showDisconnectedAlert(_ error: (any Error)?) { shown.append(error == nil ? "closed" : "gave up") }
}

@Suite("Seed 001: resource management")
struct ResourceManagementExamples {
    @Test("RpcSession is an actor whose api is nonisolated: many tasks call through it at once")
    func actorIsolation() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            // `RpcSession` is an actor, ensuring thread-safe access.
            let isolated: any Actor = session
            #expect(isolated === session)
            // `api` is nonisolated: a synchronous, nonisolated function reads it without `await`.
            func root(of session: RpcSession<Any>) -> Ref<Any> { session.api }

            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await root(of: session).doWork() }
                }
                var answers: [String] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }

            #expect(answers == Array(repeating: "done", count: 8))
            #expect(backend.count("doWork") == 8)
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("cancelling the task awaiting longRunningOperation() fails it with cancelled and stops the server's work")
    func taskCancellation() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)

            let task = Task {
                // Adapted: the bare `try await` statement is spelled `let _: RpcPayload = try await`.
                let _: RpcPayload = try await session.api.longRunningOperation()
            }

            // Adapted: "Later" is once the server runs the operation.
            #expect(await waitUntil { backend.state.withLock { $0.hangsStarted } == 1 })

            // Later...
            task.cancel()  // Sends cancellation to server

            let outcome = await task.result
            guard case .failure(let error) = outcome, case .cancelled? = error as? RpcError else {
                Issue.record("expected RpcError.cancelled, got \(outcome)")
                return
            }
            #expect(await waitUntil { backend.state.withLock { $0.hangsRunning } == 0 })
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("a scoped session is valid inside its closure and closed after it, even when the closure throws")
    func scopedSessions() async throws {
        struct Stop: Error {}
        try await withSeedServer { server, backend, peers in
            // Adapted: `url` is the test server's address, and the seed's `process(_:)` records.
            let url = server.webSocketURL
            let processed = Recorder<[String]>()
            func process(_ data: [String]) { processed.append(data) }

            try await withRpcSession(to: url) { session in
                // Session is valid here
                // Adapted: the result's type is written.
                let data: [String] = try await session.api.fetchData()
                process(data)
                await peers.expectSettled(session)
                // Session closes automatically, even on throw
            }
            #expect(processed.all == [["alpha", "beta"]])
            #expect(await waitUntil { server.sessionCount == 0 })

            // Adapted: the same with a closure that throws.
            await #expect(throws: Stop.self) {
                try await withRpcSession(to: url) { session in
                    let data: [String] = try await session.api.fetchData()
                    process(data)
                    await peers.expectSettled(session)
                    throw Stop()
                }
            }
            #expect(await waitUntil { server.sessionCount == 0 })
            #expect(backend.count("fetchData") == 2)
        }
    }

    @Test("connectionStates walks through connected, reconnecting and disconnected; onDisconnect and onReconnect fire")
    func connectionMonitoring() async throws {
        let banners = Banners()
        let disconnects = Recorder<String>()
        let reconnects = Recorder<String>()
        try await withSeedServer { server, _, peers in
            // Adapted: the session reconnects quickly, so that the test sees it do so.
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString) { config in
                config.reconnect = .exponentialBackoff(maxAttempts: 100, baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))
            }
            // Adapted: the seed's loop runs in a task of its own, so that the test goes on.
            let monitor = Task {
                // Observe connection state
                for await state in session.connectionStates {
                    switch state {
                    // Adapted: the seed's switch has no `.connecting` case; Swift requires one
                    // (`ConnectionState` has four cases, as the seed's type reference declares).
                    case .connecting:
                        break
                    case .connected:
                        banners.hideReconnectingBanner()
                    case .reconnecting(attempt: let n):
                        banners.showReconnectingBanner(attempt: n)
                    case .disconnected(let error):
                        banners.showDisconnectedAlert(error)
                    }
                }
            }

            // Or with callbacks
            session.onDisconnect { error in
                // Adapted: `\(error)` of an optional is spelled `\(String(describing: error))`.
                print("Disconnected: \(String(describing: error))")
                disconnects.append("disconnected")  // Adapted: recorded for the test.
            }

            session.onReconnect {
                print("Reconnected!")
                reconnects.append("reconnected")  // Adapted: recorded for the test.
            }

            let done: String = try await session.api.doWork()
            #expect(done == "done")
            #expect(await waitUntil { banners.shown.all.contains("hide") })

            // Adapted: the server drops the connection; the session reconnects to it.
            let dropped = try #require(server.sessions.first)
            await dropped.close()
            #expect(await waitUntil { reconnects.all == ["reconnected"] && server.sessionCount == 1 })
            let again: String = try await session.api.doWork()
            #expect(again == "done")
            await peers.expectSettled(session)
            await session.close()
            await monitor.value
        }
        let shown = banners.shown.all
        #expect(shown.first == "hide")
        #expect(shown.last == "closed")
        let firstReconnecting = try #require(shown.firstIndex(of: "reconnecting 1"))
        let lastHide = try #require(shown.lastIndex(of: "hide"))
        #expect(firstReconnecting < lastHide)
        #expect(disconnects.all.count == 2)  // The server's drop, then the session's own close.
        #expect(reconnects.all == ["reconnected"])
    }
}

import RpcTransport
import RpcTransportNIO
import Testing
import RpcTesting

@Suite("Graceful shutdown of the transport server")
struct GracefulShutdownTests {
    @Test("A graceful shutdown stops accepting, waits for the calls in flight, then closes WebSockets with 1001")
    func drainsThenGoesAway() async throws {
        let inFlight = InFlightWork()
        try await EchoServer.run { server, observations in
            let client = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(client)
            _ = try await observations.transport()
            inFlight.begin()
            async let shutdown: Void = server.shutdownGracefully(drainTimeout: .seconds(30)) {
                await inFlight.waitUntilIdle()
            }
            // A new connection is refused once the listening socket is closed.
            try await waitUntil("the server refuses new connections", timeout: .seconds(10)) {
                do {
                    let extra = try await WebSocketClient.connect(to: EchoServer.url(server))
                    await extra.close(code: .normal, reason: "")
                    return false
                } catch {
                    return true
                }
            }
            // The call in flight keeps the open connection: it still echoes.
            try client.enqueue(.text("still here"))
            #expect(try await recorder.nextMessage().text == "still here")
            inFlight.end()
            await shutdown
            let closure = try await recorder.closure()
            #expect(closure.code == .goingAway)
        }
    }

    @Test("Calls still in flight at the drain timeout do not hold the shutdown: the WebSockets close with 1001")
    func drainTimeoutGoesAway() async throws {
        let inFlight = InFlightWork()
        inFlight.begin()
        try await EchoServer.run { server, observations in
            let client = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(client)
            _ = try await observations.transport()
            let started = ContinuousClock.now
            await server.shutdownGracefully(drainTimeout: .milliseconds(200)) { await inFlight.waitUntilIdle() }
            #expect(ContinuousClock.now - started >= .milliseconds(200))
            let closure = try await recorder.closure()
            #expect(closure.code == .goingAway)
            #expect(inFlight.count == 1)
        }
    }

    @Test("Waiting for in-flight work ends when it reaches zero, at once when there is none, and on cancellation")
    func inFlightWorkWaits() async {
        let work = InFlightWork()
        await work.waitUntilIdle()
        work.begin()
        work.begin()
        let waiter = Task { await work.waitUntilIdle() }
        work.end()
        #expect(work.count == 1)
        work.end()
        await waiter.value
        #expect(work.count == 0)
        work.end()
        #expect(work.count == 0)
        work.begin()
        let cancelled = Task { await work.waitUntilIdle() }
        cancelled.cancel()
        await cancelled.value
        #expect(work.count == 1)
    }
}

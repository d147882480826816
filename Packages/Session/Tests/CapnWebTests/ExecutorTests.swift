import NIOCore
import NIOPosix
import Synchronization
import RpcTransportTesting
import Testing
import CapnWebSocketTestSupport
@_spi(RpcImplementation) import RpcTransportNIO
@testable import CapnWebCore
import CapnWeb

/// A main object that records on which thread its methods run.
final class ThreadProbeTarget: RpcTarget {
    /// For each call, whether it ran on an event loop thread.
    let ranOnEventLoop = Recorder<Bool>()
    /// One entry per `hang()` that started.
    let hangsStarted = Recorder<Bool>()
    /// One entry per `hang()` that was cancelled.
    let hangsCancelled = Recorder<Bool>()

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "where":
            ranOnEventLoop.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
            return .string("here")
        case "whereAfterSleeping":
            try await Task.sleep(for: .milliseconds(1))
            ranOnEventLoop.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
            return .string("here")
        case "hang":
            hangsStarted.append(true)
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                hangsCancelled.append(true)
                throw error
            }
            return .undefined
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

@Suite("Threads and timeouts")
struct ExecutorTests {
    /// `where` records its thread at once; `whereAfterSleeping` after it suspended and resumed.
    @Test(
        "a target called by the peer runs on the connection's event loop, at the start and after it suspends",
        arguments: ["where", "whereAfterSleeping"]
    )
    func targetsRunOnTheLoop(method: String) async throws {
        let probe = ThreadProbeTarget()
        try await withSocketPeers(main: { _ in probe }) { peers in
            let session = try await peers.connect()
            do {
                for _ in 0 ..< 5 {
                    let answer: String = try await session.api[dynamicMember: method]()
                    #expect(answer == "here")
                }
                #expect(probe.ranOnEventLoop.all == [Bool](repeating: true, count: 5))
                await peers.expectSettled(session)
            }
        }
    }

    @Test("calls awaited with the session's executor as preference resume on the connection's loop")
    func callersResumeOnTheLoop() async throws {
        try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let session = try await peers.connect()
            do {
                let executor = try #require(session.executor as? EventLoopTaskExecutor)
                let loop = executor.eventLoop
                let onLoop = try await withTaskExecutorPreference(executor) {
                    var onLoop: [Bool] = []
                    for value in 1 ... 5 {
                        let n: Double = try await session.api.square(Double(value))
                        #expect(n == Double(value * value))
                        onLoop.append(loop.inEventLoop)
                    }
                    return onLoop
                }
                #expect(onLoop == [Bool](repeating: true, count: 5))
                await peers.expectSettled(session)
            }
        }
    }

    @Test("a session opened from a URL keeps one executor across reconnects")
    func executorSurvivesReconnect() async throws {
        try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let server = peers.server
            let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
            peers.track(session)
            let before = try #require(session.executor as? EventLoopTaskExecutor)
            try await session.reconnect()
            let after = try #require(session.executor as? EventLoopTaskExecutor)
            #expect(before === after)
            let n: Double = try await session.api.square(3)
            #expect(n == 9)
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("an awaited call fails with timeout once the call timeout passes, and the session goes on")
    func callTimeout() async throws {
        let probe = ThreadProbeTarget()
        try await withSocketPeers(main: { _ in probe }) { peers in
            let session = try await peers.connect(configure: { $0.timeout = .milliseconds(200) })
            do {
                do {
                    let _: String = try await session.api.hang()
                    Issue.record("the hanging call returned")
                } catch let error as RpcError {
                    if case .timeout = error {} else { Issue.record("expected a timeout, got \(error)") }
                }
                // The timeout failed a call the server really had in hand, not one that never
                // left (the call is sent before the timeout starts, so this holds at once or soon).
                #expect(await waitUntil { probe.hangsStarted.all == [true] })
                let answer: String = try await session.api.where()
                #expect(answer == "here")
                await peers.expectSettled(session)
            }
        }
    }

    @Test("cancelling the awaiting task fails the call with cancelled and releases its result")
    func cancellation() async throws {
        let probe = ThreadProbeTarget()
        try await withSocketPeers(main: { _ in probe }) { peers in
            let server = peers.server
            let session = try await peers.connect()
            do {
                let waiting = Task {
                    let _: String = try await session.api.hang()
                }
                #expect(await waitUntil { server.sessions.first.map { $0.getStats().exports == 2 } ?? false })
                waiting.cancel()
                let outcome = await waiting.result
                guard case .failure(let error) = outcome, let rpcError = error as? RpcError, case .cancelled = rpcError else {
                    Issue.record("expected cancelled, got \(outcome)")
                    return
                }
                await peers.expectSettled(session)
            }
        }
    }

    @Test("a call of the peer's still running when the session ends is cancelled")
    func runningCallsCancelledAtEnd() async throws {
        let probe = ThreadProbeTarget()
        try await withSocketPeers(main: { _ in probe }) { peers in
            let server = peers.server
            let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
            peers.track(session)
            // Sent now (a ref only built sends nothing) and held until the session ends, so that
            // the call is not released before.
            let hanging = session.api.hang().sendNow()
            #expect(await waitUntil { server.sessions.first.map { $0.getStats().exports == 2 } ?? false })
            #expect(probe.hangsCancelled.all.isEmpty)
            await session.close()
            #expect(await waitUntil(timeout: .seconds(5)) { probe.hangsCancelled.all == [true] })
            #expect(await waitUntil(timeout: .seconds(5)) { server.sessionCount == 0 })
            #expect(session.getStats() == RpcStats(imports: 1, exports: 1))
            withExtendedLifetime(hanging) {}
        }
    }

    @Test("the call deadlines fail only expired waiters, and refuse new ones once closed")
    func deadlinesSweep() async throws {
        let deadlines = CallDeadlines(timeout: .milliseconds(50))
        let expiring = SettlementWaiter()
        let answered = SettlementWaiter()
        let first = try #require(deadlines.register(expiring))
        let second = try #require(deadlines.register(answered))
        answered.resume(.success(.integer(1)))
        deadlines.finished(second)
        let outcome = await withUnsafeContinuation { continuation in
            expiring.install(continuation)
        }
        guard case .failure(.failed(.timeout)) = outcome else {
            Issue.record("expected a timeout, got \(outcome)")
            return
        }
        deadlines.finished(first)
        deadlines.close()
        #expect(deadlines.register(SettlementWaiter()) == nil)
    }

    @Test("call deadlines made one at a time keep at most 64 finished ones stored, and one left waiting among them is still found")
    func deadlinesOneAtATimeStayBounded() throws {
        let deadlines = CallDeadlines(timeout: .seconds(60))
        var largest = 0
        for _ in 0 ..< 1_000 {
            let id = try #require(deadlines.register(SettlementWaiter()))
            largest = max(largest, deadlines.storedCount)
            deadlines.finished(id)
            #expect(deadlines.waitingCount == 0)
        }
        #expect(largest <= 65)
        // One left waiting among finished ones is still found and finished.
        let waiting = try #require(deadlines.register(SettlementWaiter()))
        for _ in 0 ..< 100 {
            deadlines.finished(try #require(deadlines.register(SettlementWaiter())))
        }
        #expect(deadlines.waitingCount == 1)
        deadlines.finished(waiting)
        #expect(deadlines.waitingCount == 0)
        #expect(deadlines.storedCount <= 65)
        deadlines.close()
    }

    @Test("call deadlines finished in any order are all dropped, and an unfinished one still expires")
    func deadlinesFinishedOutOfOrder() async throws {
        let deadlines = CallDeadlines(timeout: .seconds(60))
        var registrations: [UInt64] = []
        for _ in 0 ..< 300 {
            registrations.append(try #require(deadlines.register(SettlementWaiter())))
        }
        #expect(Set(registrations).count == 300)
        // Every third first, then the rest from the back: the oldest finishes only at the end.
        for (index, id) in registrations.enumerated() where index % 3 == 1 { deadlines.finished(id) }
        #expect(deadlines.waitingCount == 200)
        for (index, id) in registrations.enumerated().reversed() where index % 3 != 1 { deadlines.finished(id) }
        #expect(deadlines.waitingCount == 0)
        // Finishing again, or a number never handed out, changes nothing.
        deadlines.finished(registrations[0])
        deadlines.finished(UInt64.max)
        #expect(deadlines.waitingCount == 0)
        deadlines.close()

        let short = CallDeadlines(timeout: .milliseconds(50))
        let answered = SettlementWaiter()
        let expiring = SettlementWaiter()
        let early = try #require(short.register(answered))
        let late = try #require(short.register(expiring))
        short.finished(early)
        #expect(short.waitingCount == 1)
        let outcome = await withUnsafeContinuation { continuation in
            expiring.install(continuation)
        }
        guard case .failure(.failed(.timeout)) = outcome else {
            Issue.record("expected a timeout, got \(outcome)")
            return
        }
        #expect(short.waitingCount == 0)
        short.finished(late)
        short.close()
        #expect(short.register(SettlementWaiter()) == nil)
    }
}

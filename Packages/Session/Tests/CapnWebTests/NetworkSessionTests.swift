#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOHTTP1
import Synchronization
import RpcTransportTesting
import Testing
import CapnWebSocketTestSupport
import CapnWebTestSupport
import RpcTransport
import RpcTransportNIO
@testable import CapnWebCore
import CapnWeb

@Suite("Network sessions")
struct NetworkSessionTests {
    @Test("a Swift client calls a Swift server over WebSocket, including a pipelined chain")
    func webSocketCalls() async throws {
        try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let server = peers.server
            #expect(server.webSocketURL.absoluteString == "ws://127.0.0.1:\(server.port)/ws")
            #expect(server.batchURL.absoluteString == "http://127.0.0.1:\(server.port)/rpc")
            let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
            peers.track(session)
            let n: Double = try await session.api.square(5)
            #expect(n == 25)
            do {
                let counter = session.api.makeCounter(10)
                let v: Int = try await counter.increment(5)
                #expect(v == 15)
            }
            let chained: Int = try await session.api.makeCounter(1).increment(2)
            #expect(chained == 3)
            #expect(await waitUntil { server.sessionCount == 1 })
            await peers.expectSettled(session)
            await session.close()
            await server.waitForSessionCount(0)
            #expect(server.sessionCount == 0)
        }
    }

    @Test("withRpcSession closes the session when its body throws")
    func scopedSessionClosesOnThrow() async throws {
        struct Boom: Error {}
        try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let server = peers.server
            await #expect(throws: Boom.self) {
                try await withRpcSession(to: server.webSocketURL) { session in
                    let n: Double = try await session.api.square(3)
                    #expect(n == 9)
                    #expect(await waitUntil { server.sessionCount == 1 })
                    await peers.expectSettled(session)
                    throw Boom()
                }
            }
            #expect(await waitUntil { server.sessionCount == 0 })
        }
    }

    @Test("an HTTP batch answers several calls and a pipelined chain in one POST")
    func httpBatch() async throws {
        let mains = Recorder<Int>()
        try await withSocketPeers(main: { _ in mains.append(1); return NetTarget() }) { peers in
            let server = peers.server
            // Calls from `async let` tasks join the batch while it waits; a generous quiet time
            // keeps one batch on a loaded machine, where a task may start late.
            let (square, sum, chained) = try await RpcSession<Any>.batch(
                url: server.batchURL, configure: { $0.batchDelay = .milliseconds(200) }
            ) { api in
                async let square: Double = api.square(4)
                async let sum: Int = api.add(2, 3)
                async let chained: Int = api.makeCounter(10).increment(5)
                return try await (square, sum, chained)
            }
            #expect(square == 16)
            #expect(sum == 5)
            #expect(chained == 15)
            #expect(mains.all.count == 1)
            // A second batch gets a fresh main object.
            let again: Int = try await RpcSession<Any>.batch(url: server.batchURL) { api in
                try await api.makeCounter(1).increment(1)
            }
            #expect(again == 2)
            #expect(mains.all.count == 2)
            #expect(server.sessionCount == 0)
        }
    }

    @Test("every call made in a batch goes in its one POST, however long the closure takes between them")
    func slowBatchClosureStillOnePost() async throws {
        let mains = Recorder<Int>()
        try await withSocketPeers(main: { _ in mains.append(1); return NetTarget() }) { peers in
            let server = peers.server
            // The default quiet time (5 ms) is far shorter than the pauses: only awaiting a
            // result (or returning) makes the request leave.
            let (square, sum, logged) = try await RpcSession<Any>.batch(url: server.batchURL) { api in
                let square = api.square(4)
                try await Task.sleep(for: .milliseconds(50))
                let sum = api.add(2, 3)
                try await Task.sleep(for: .milliseconds(50))
                // Sent at once, awaited after the others: its result is asked for too.
                let sent = api.add(3, 4).sendNow()
                try await Task.sleep(for: .milliseconds(50))
                let squared: Double = try await square.resolved()
                let added: Int = try await sum.resolved()
                let value: Int = try await sent.resolved()
                return (squared, added, value)
            }
            #expect(square == 16)
            #expect(sum == 5)
            #expect(logged == 7)
            // One main object per POST: one POST carried all three calls.
            #expect(mains.all.count == 1)
            #expect(server.sessionCount == 0)
        }
    }

    @Test("calls made after the batch's POST left fail at once with an error that says so")
    func batchEndsAfterAnswer() async throws {
        try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let server = peers.server
            let error = try await RpcSession<Any>.batch(url: server.batchURL) { api -> RpcError? in
                let n: Double = try await api.square(2)
                #expect(n == 4)
                do {
                    let _: Double = try await api.square(3)
                    return nil
                } catch let error as RpcError {
                    return error
                }
            }
            guard case .connectionLost(let underlying) = error else {
                Issue.record("expected connectionLost, got \(String(describing: error))")
                return
            }
            #expect(String(describing: underlying).contains("BatchAlreadySent"))
            #expect(String(describing: underlying).contains("has already been sent"))
        }
    }

    @Test("a batch answered with a non-2xx status fails every call with the transport error")
    func batchHTTPFailure() async throws {
        try await withTransportServer(
            configuration: TransportServerConfiguration(address: .host("127.0.0.1", port: 0)),
            onBatch: { _ in throw TransportError(code: .ioError, message: "nope") }
        ) { server in
            let port = server.port ?? 0
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/rpc"))
            let failures = try await RpcSession<Any>.batch(
                url: url, configure: { $0.batchDelay = .milliseconds(200) }
            ) { api -> [RpcError] in
                async let a: Result<Double, RpcError> = api.square(2).resolvedResult()
                async let b: Result<Int, RpcError> = api.add(1, 2).resolvedResult()
                return [await a.failure, await b.failure].compactMap { $0 }
            }
            #expect(failures.count == 2)
            for failure in failures {
                guard case .connectionLost(let underlying as TransportError) = failure else {
                    Issue.record("expected connectionLost(TransportError), got \(failure)")
                    continue
                }
                #expect(underlying.httpStatus == 500)
            }
        }
    }

    @Test("the server answers 405 to a plain GET and to other methods, and 500 to an empty batch line")
    func httpRefusals() async throws {
        try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let server = peers.server
            let port = server.port
            let get = try await Task.detached { try rawHTTP(port: port, method: "GET", path: "/rpc") }.value
            #expect(get.status == 405)
            let put = try await Task.detached { try rawHTTP(port: port, method: "PUT", path: "/rpc", body: "x") }.value
            #expect(put.status == 405)
            let empty = try await Task.detached {
                try rawHTTP(port: port, method: "POST", path: "/rpc", body: "[\"push\",[\"pipeline\",0,[\"square\"],[2]]]\n\n[\"pull\",1]")
            }.value
            #expect(empty.status == 500)
            let good = try await Task.detached {
                try rawHTTP(port: port, method: "POST", path: "/rpc", body: "[\"push\",[\"pipeline\",0,[\"square\"],[3]]]\n[\"pull\",1]")
            }.value
            #expect(good.status == 200)
            #expect(good.body == "[\"resolve\",1,9]")
        }
    }

    @Test("the session reconnects after the server restarts, publishing reconnecting then connected")
    func reconnectAfterRestart() async throws {
        let states = Recorder<String>()
        let disconnects = Recorder<Int>()
        let reconnects = Recorder<Int>()
        // The first server stops with the counter still held: one import and one export more.
        let heldCounter = SettledTables(client: RpcStats(imports: 2, exports: 1), server: RpcStats(imports: 1, exports: 2))
        let (session, port, observer, oldCounter) = try await withSocketPeers(
            main: { _ in NetTarget() }, expecting: heldCounter
        ) { peers in
            let server = peers.server
            let session = try await RpcSession<Any>.connect(to: server.webSocketURL) { config in
                config.reconnect = .exponentialBackoff(
                    maxAttempts: 100, baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))
            }
            session.onDisconnect { _ in disconnects.append(1) }
            session.onReconnect { reconnects.append(1) }
            let stream = session.connectionStates
            let observer = Task {
                for await state in stream { states.append(state.description) }
            }
            let n: Double = try await session.api.square(3)
            #expect(n == 9)
            await peers.expectSettled(session, now: .clean, closing: false)
            let oldCounter = session.api.makeCounter(1)
            let one: Int = try await oldCounter.increment(0)
            #expect(one == 1)
            return (session, server.port, observer, oldCounter)
        }
        #expect(await waitUntil { states.all.contains { $0.hasPrefix("reconnecting") } })
        try await withSocketPeers(port: port, main: { _ in NetTarget() }) { peers in
            let server = peers.server
            #expect(await waitUntil(timeout: .seconds(5)) { states.all.last == "connected" && server.sessionCount == 1 })
            let n: Double = try await session.api.square(4)
            #expect(n == 16)
            let stale: Result<Int, RpcError> = await oldCounter.increment(1).resolvedResult()
            if case .failure(.connectionLost) = stale {} else { Issue.record("expected connectionLost, got \(stale)") }
            await peers.expectSettled(session)
            await session.close()
        }
        await observer.value
        let seen = states.all
        let firstReconnecting = seen.firstIndex { $0.hasPrefix("reconnecting") }
        let lastConnected = seen.lastIndex(of: "connected")
        #expect(firstReconnecting != nil && lastConnected != nil)
        if let firstReconnecting, let lastConnected { #expect(firstReconnecting < lastConnected) }
        #expect(seen.last == "disconnected")
        #expect(disconnects.all.count >= 1)
        #expect(reconnects.all.count == 1)
    }

    @Test("when the server does not come back the session gives up after its attempts: disconnected is published once and calls fail with connectionLost")
    func reconnectGivesUp() async throws {
        let states = Recorder<String>()
        let disconnects = Recorder<Int>()
        let (session, observer) = try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let server = peers.server
            let session = try await RpcSession<Any>.connect(to: server.webSocketURL) { config in
                config.reconnect = .exponentialBackoff(
                    maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20))
            }
            session.onDisconnect { _ in disconnects.append(1) }
            let stream = session.connectionStates
            let observer = Task {
                for await state in stream { states.append(state.description) }
            }
            peers.track(session, closing: false)
            let n: Double = try await session.api.square(3)
            #expect(n == 9)
            return (session, observer)
        }
        #expect(await waitUntil(timeout: .seconds(5)) { states.all.last?.hasPrefix("disconnected(") == true })
        #expect(states.all.filter { $0.hasPrefix("reconnecting") } == ["reconnecting(1)", "reconnecting(2)", "reconnecting(3)"])
        let result: Result<Double, RpcError> = await session.api.square(2).resolvedResult()
        if case .failure(.connectionLost) = result {} else { Issue.record("expected connectionLost, got \(result)") }
        #expect(disconnects.all.count == 1)
        await session.close()
        await observer.value
    }

    @Test("reconnect() replaces the connection; api works on the new one and old refs fail")
    func manualReconnect() async throws {
        try await withSocketPeers(main: { _ in NetTarget() }) { peers in
            let server = peers.server
            let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
            peers.track(session)
            let counter = session.api.makeCounter(5)
            let v: Int = try await counter.increment(1)
            #expect(v == 6)
            try await session.reconnect()
            let n: Double = try await session.api.square(6)
            #expect(n == 36)
            let stale: Result<Int, RpcError> = await counter.increment(1).resolvedResult()
            if case .failure(.connectionLost) = stale {} else { Issue.record("expected connectionLost, got \(stale)") }
            #expect(await waitUntil { server.sessionCount == 1 })
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("closure and builder configurations set the same values, and headers reach the upgrade")
    func configurationForms() async throws {
        @ConfigurationBuilder func built() -> Configuration {
            Timeout(.seconds(12))
            Reconnect {
                MaxAttempts(7)
                Backoff(.exponential(base: .seconds(1), max: .seconds(30)))
            }
            Headers {
                Header("X-A", "1")
                Header("X-B", "2")
            }
            TLS {
                MinimumTLSVersion(.v1_3)
                PinnedCertificates(files: "/nonexistent.pem")
            }
        }
        let fromBuilder = built()
        var fromClosure = Configuration()
        fromClosure.timeout = .seconds(12)
        fromClosure.reconnect = .exponentialBackoff(maxAttempts: 7, baseDelay: .seconds(1), maxDelay: .seconds(30))
        fromClosure.headers = ["X-A": "1", "X-B": "2"]
        #expect(fromBuilder.timeout == fromClosure.timeout)
        #expect(fromBuilder.reconnect == fromClosure.reconnect)
        #expect(fromBuilder.headers == fromClosure.headers)
        #expect(fromBuilder.tls?.minimumVersion == .v1_3)
        #expect(fromBuilder.tls?.trustRoots == .certificates([.file(path: "/nonexistent.pem")]))
        #expect(ReconnectPolicy.none == .never)
        #expect(ReconnectPolicy.immediate(maxAttempts: 3).backoff.delay(forAttempt: 2) == .zero)

        let seenHeaders = Recorder<String>()
        try await withCheckedPeers { peers in
            try await withTransportServer(
                configuration: TransportServerConfiguration(address: .host("127.0.0.1", port: 0)),
                onConnection: { transport, request in
                    seenHeaders.append(request.headers.first(name: "X-A") ?? "-")
                    seenHeaders.append(request.headers.first(name: "X-B") ?? "-")
                    _ = peers.startServer(transport: transport, main: NetTarget())
                    _ = await transport.waitUntilClosed()
                }
            ) { server in
                let url = try #require(URL(string: "ws://127.0.0.1:\(server.port ?? 0)/anything"))
                let builderSession = try await RpcSession<Any>.connect(to: url) {
                    Timeout(.seconds(12))
                    Headers {
                        Header("X-A", "1")
                        Header("X-B", "2")
                    }
                }
                let n: Double = try await builderSession.api.square(2)
                #expect(n == 4)
                await peers.expectSettled(builderSession)
                await builderSession.close()
                let closureSession = try await RpcSession<Any>.connect(to: url) { config in
                    config.headers = ["X-A": "1", "X-B": "2"]
                }
                let m: Double = try await closureSession.api.square(3)
                #expect(m == 9)
                await peers.expectSettled(closureSession)
                await closureSession.close()
            }
        }
        #expect(seenHeaders.all == ["1", "2", "1", "2"])
    }

    @Test("bad URLs fail with the transport's invalidTarget and unreachable servers with connectFailed, both as connectionLost")
    func badURLs() async throws {
        let http = try #require(URL(string: "http://127.0.0.1:1/"))
        await #expect {
            _ = try await RpcSession<Any>.connect(to: http)
        } throws: { error in
            if case .connectionLost(let underlying as TransportError) = error as? RpcError {
                return underlying.code == .invalidTarget
            }
            return false
        }
        // A port that was free a moment ago: nothing listens there any more.
        let freePort = try await withSocketPeers(main: { _ in NetTarget() }) { peers in peers.server.port }
        let ws = try #require(URL(string: "ws://127.0.0.1:\(freePort)/"))
        await #expect {
            _ = try await RpcSession<Any>.batch(url: ws) { _ in 1 }
        } throws: { error in
            if case .connectionLost(let underlying as TransportError) = error as? RpcError {
                return underlying.code == .invalidTarget
            }
            return false
        }
        await #expect {
            _ = try await RpcSession<Any>.connect(to: ws)
        } throws: { error in
            if case .connectionLost(let underlying as TransportError) = error as? RpcError {
                return underlying.code == .connectFailed
            }
            return false
        }
    }
}

extension Ref {
    /// The value as a `Result`, for checking failures without `do`/`catch`.
    func resolvedResult<V: Decodable>(as type: V.Type = V.self) async -> Result<V, RpcError> {
        do {
            return .success(try await resolved(as: V.self))
        } catch {
            return .failure(error)
        }
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

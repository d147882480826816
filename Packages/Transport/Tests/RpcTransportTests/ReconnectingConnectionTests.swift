@_spi(RpcImplementation) import RpcTransport
import RpcTransportInMemory
import Synchronization
import RpcTesting
import Testing

@Suite("ReconnectingConnection (in-memory transport)")
struct ReconnectingConnectionTests {
    @Test("a server killed mid-call: the loss is reported, the connection comes back with the policy, and the next call is answered")
    func serverKilledMidCall() async throws {
        let peer = ScriptedPeer()
        let inbox = Collected<String>()
        let losses = Collected<UInt64>()
        let states = Collected<String>()
        try await ReconnectingConnection.withReconnectingConnection(
            configuration: quickConfiguration(),
            factory: peer.factory,
            handler: .messages { message in inbox.append(message.text ?? "") }
        ) { connection in
            connection.onLoss { losses.append($0) }
            connection.onStateChange { states.append($0.description) }
            try await connection.send(.text("one"))
            #expect(await waitUntil { inbox.all == ["one"] })
            // A call the server never answers, then the server dies.
            try await connection.send(.text("hold"))
            #expect(await waitUntil { peer.received.contains("hold") })
            peer.setMode(.refuse)
            peer.cutAll()
            #expect(await waitUntil { losses.all == [1] })
            #expect(await waitUntil { states.all.contains("reconnecting(2)") })
            peer.setMode(.accept)
            #expect(await waitUntil { connection.state.isConnected })
            let link = try await connection.link()
            #expect(link.generation == 2)
            try await connection.send(.text("two"))
            #expect(await waitUntil { inbox.all == ["one", "two"] })
        }
        #expect(states.all.first == "reconnecting(1)")
        #expect(states.all.last == "disconnected")
        #expect(peer.connects == 2)
    }

    @Test("a silent server is noticed by the keepalive: pings were sent and answered until it went silent, then the connection reconnects")
    func keepaliveNoticesSilentServer() async throws {
        let peer = ScriptedPeer()
        let configuration = quickConfiguration {
            $0.keepalive = Keepalive(interval: .milliseconds(30), timeout: .milliseconds(300))
        }
        try await ReconnectingConnection.withReconnectingConnection(
            configuration: configuration, factory: peer.factory, handler: .messages { _ in }
        ) { connection in
            let first = try #require(peer.ends.first)
            // The keepalive pings at the transport level, and the peer answers.
            #expect(await waitUntil { first.pongsSent >= 2 })
            peer.goSilent()
            let answered = first.pongsSent
            #expect(await waitUntil { peer.connects >= 2 && connection.state.isConnected })
            #expect(first.state.isClosed)
            #expect(first.pingsReceived > answered)
            #expect(first.pongsSent == answered)
        }
    }

    @Test("without keepalive a silent server still looks connected while one with keepalive has been replaced")
    func silentServerUnnoticedWithoutKeepalive() async throws {
        let watched = ScriptedPeer()
        let unwatched = ScriptedPeer()
        let keepalive = quickConfiguration {
            $0.keepalive = Keepalive(interval: .milliseconds(30), timeout: .milliseconds(300))
        }
        try await ReconnectingConnection.withReconnectingConnection(
            configuration: quickConfiguration(), factory: unwatched.factory, handler: .messages { _ in }
        ) { control in
            try await ReconnectingConnection.withReconnectingConnection(
                configuration: keepalive, factory: watched.factory, handler: .messages { _ in }
            ) { connection in
                unwatched.goSilent()
                watched.goSilent()
                // Once the keepalive has replaced its connection, the control has had the same
                // time and more to notice anything.
                #expect(await waitUntil { watched.connects >= 2 && connection.state.isConnected })
                #expect(control.state.isConnected)
                #expect(unwatched.connects == 1)
                #expect(unwatched.ends.first?.pingsReceived == 0)
                let generation = try await control.link().generation
                #expect(generation == 1)
            }
        }
    }

    @Test("messages sent while offline are held up to the limit, the next one fails with offlineQueueFull, and the held ones are flushed in order")
    func offlineQueueBound() async throws {
        let peer = ScriptedPeer()
        let inbox = Collected<String>()
        let configuration = quickConfiguration { $0.offlineQueueLimit = 3 }
        try await ReconnectingConnection.withReconnectingConnection(
            configuration: configuration, factory: peer.factory, handler: .messages { inbox.append($0.text ?? "") }
        ) { connection in
            peer.setMode(.refuse)
            peer.cutAll()
            #expect(await waitUntil { !connection.state.isConnected })
            for text in ["a", "b", "c"] {
                try await connection.send(.text(text))
            }
            do {
                try await connection.send(.text("d"))
                Issue.record("expected offlineQueueFull")
            } catch let error as TransportError {
                #expect(error.code == .offlineQueueFull)
            }
            peer.setMode(.accept)
            #expect(await waitUntil { inbox.all == ["a", "b", "c"] })
            #expect(peer.received == ["a", "b", "c"])
        }
    }

    @Test("without an offline queue a message sent while offline fails at once with notConnected")
    func noOfflineQueue() async throws {
        let peer = ScriptedPeer()
        let configuration = quickConfiguration { $0.offlineQueueLimit = nil }
        try await ReconnectingConnection.withReconnectingConnection(
            configuration: configuration, factory: peer.factory, handler: .messages { _ in }
        ) { connection in
            peer.setMode(.refuse)
            peer.cutAll()
            #expect(await waitUntil { !connection.state.isConnected })
            do {
                try await connection.send(.text("x"))
                Issue.record("expected notConnected")
            } catch let error as TransportError {
                #expect(error.code == .notConnected)
            }
        }
    }

    @Test("every backoff delay stays within its attempt's ceiling and the policy's maximum")
    func backoffBounds() {
        let policy = ReconnectPolicy(maxAttempts: 12, backoff: .exponential(base: .milliseconds(100), max: .seconds(2)))
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...12 {
            let ceiling = policy.backoff.ceiling(forAttempt: attempt)
            #expect(ceiling <= .seconds(2))
            #expect(ceiling >= .milliseconds(100))
            for _ in 0..<50 {
                let delay = policy.backoff.delay(forAttempt: attempt, using: &generator)
                #expect(delay >= .zero && delay <= ceiling)
            }
        }
        #expect(policy.backoff.ceiling(forAttempt: 3) == .milliseconds(400))
        #expect(!policy.allows(attempt: 13))
    }

    @Test("after a loss the connection makes exactly maxAttempts attempts, then publishes disconnected and fails waiting callers")
    func givesUpAfterMaxAttempts() async throws {
        let peer = ScriptedPeer()
        let states = Collected<String>()
        let configuration = quickConfiguration {
            $0.reconnect = ReconnectPolicy(maxAttempts: 3, backoff: .exponential(base: .milliseconds(1), max: .milliseconds(5)))
        }
        let connection = ReconnectingConnection(configuration: configuration, factory: peer.factory, handler: .messages { _ in })
        connection.onStateChange { states.append($0.description) }
        try await connection.start()
        peer.setMode(.refuse)
        peer.cutAll()
        #expect(await waitUntil { !connection.isRunning })
        #expect(states.all.filter { $0.hasPrefix("reconnecting") } == ["reconnecting(1)", "reconnecting(2)", "reconnecting(3)"])
        #expect(states.all.last?.hasPrefix("disconnected(") == true)
        do {
            _ = try await connection.link()
            Issue.record("expected notConnected")
        } catch {
            #expect(error.code == .notConnected)
        }
        await connection.close()
    }

    @Test("close cancels a connect in progress and a waiting caller, awaits the supervising task and finishes the state streams")
    func closeEndsEveryTask() async throws {
        let peer = ScriptedPeer()
        let connection = ReconnectingConnection(
            configuration: quickConfiguration { $0.connectTimeout = .seconds(3600) },
            factory: peer.factory,
            handler: .messages { _ in })
        try await connection.start()
        let first = try #require(peer.ends.first)
        let states = connection.stateUpdates()
        let observer = Task {
            var seen: [String] = []
            for await state in states { seen.append(state.description) }
            return seen
        }
        // The next connect hangs until it is cancelled.
        peer.setMode(.hang)
        peer.cutAll()
        #expect(await waitUntil { connection.state.description.hasPrefix("reconnecting") })
        let waiter = Task { () -> TransportError.Code? in
            do {
                _ = try await connection.link()
                return nil
            } catch let error as TransportError {
                return error.code
            } catch {
                return nil
            }
        }
        await connection.close()
        // Closed while it waited, or refused as not running had the close come first.
        let code = await waiter.value
        #expect(code == .closed || code == .notConnected)
        let seen = await observer.value
        #expect(seen.last == "disconnected")
        #expect(first.state.isClosed)
        // A stream asked for after the close ends at once.
        var late: [String] = []
        for await state in connection.stateUpdates() { late.append(state.description) }
        #expect(late == ["disconnected"])
    }

    @Test("a connect that takes longer than the connect timeout fails with connectTimeout")
    func connectTimeout() async throws {
        let peer = ScriptedPeer()
        peer.setMode(.hang)
        let connection = ReconnectingConnection(
            configuration: quickConfiguration { $0.connectTimeout = .milliseconds(50) },
            factory: peer.factory,
            handler: .messages { _ in })
        do {
            try await connection.start()
            Issue.record("expected connectTimeout")
        } catch {
            #expect(error.code == .connectTimeout)
        }
        await connection.close()
    }

    @Test("an explicit reconnect replaces the transport at once; when it cannot connect it throws and publishes disconnected")
    func explicitReconnect() async throws {
        let peer = ScriptedPeer()
        let inbox = Collected<String>()
        let losses = Collected<UInt64>()
        let connection = ReconnectingConnection(
            configuration: quickConfiguration(), factory: peer.factory, handler: .messages { inbox.append($0.text ?? "") })
        connection.onLoss { losses.append($0) }
        try await connection.start()
        connection.updateHeader("token", value: "2")
        try await connection.reconnect()
        #expect(losses.all == [1])
        #expect(peer.connects == 2)
        #expect(await waitUntil { peer.ends.first?.state.isClosed == true })
        let generation = try await connection.link().generation
        #expect(generation == 2)
        try await connection.send(.text("after"))
        #expect(await waitUntil { inbox.all == ["after"] })

        peer.setMode(.refuse)
        do {
            try await connection.reconnect()
            Issue.record("expected the reconnect to fail")
        } catch {
            #expect(error.code == .connectFailed)
            #expect(error.cause is ScriptedPeer.Refused)
        }
        #expect(connection.state.description.hasPrefix("disconnected("))
        #expect(!connection.isRunning)
        // It can be asked again once the peer is back.
        peer.setMode(.accept)
        try await connection.reconnect()
        #expect(connection.state.isConnected)
        await connection.close()
    }

    @Test("an explicit reconnect that fails can keep trying with the backoff")
    func explicitReconnectKeepsTrying() async throws {
        let peer = ScriptedPeer()
        let connection = ReconnectingConnection(configuration: quickConfiguration(), factory: peer.factory, handler: .messages { _ in })
        try await connection.start()
        peer.setMode(.refuse)
        await #expect(throws: TransportError.self) { try await connection.reconnect(keepTryingOnFailure: true) }
        #expect(connection.isRunning)
        peer.setMode(.accept)
        #expect(await waitUntil { connection.state.isConnected })
        #expect(peer.connects == 2)
        await connection.close()
    }

    @Test("the first connection failing makes start throw the factory's error, wrapped as connectFailed")
    func firstConnectFails() async throws {
        let peer = ScriptedPeer()
        peer.setMode(.refuse)
        let connection = ReconnectingConnection(configuration: quickConfiguration(), factory: peer.factory, handler: .messages { _ in })
        do {
            try await connection.start()
            Issue.record("expected start to fail")
        } catch {
            #expect(error.code == .connectFailed)
        }
        #expect(connection.state.description.hasPrefix("disconnected("))
        await connection.close()
    }

    @Test("a transport its owner reports failed while still open is ended with that error and replaced")
    func ownerReportsFailure() async throws {
        let peer = ScriptedPeer()
        let losses = Collected<UInt64>()
        try await ReconnectingConnection.withReconnectingConnection(
            configuration: quickConfiguration(), factory: peer.factory, handler: .transports { transport, _ in transport.start { _ in } }
        ) { connection in
            connection.onLoss { losses.append($0) }
            let first = try #require(connection.currentTransport)
            // A stale generation is ignored.
            connection.transportFailed(generation: 7, error: TransportError(code: .protocolViolation, message: "stale"))
            connection.transportFailed(generation: 1, error: TransportError(code: .protocolViolation, message: "engine failed"))
            #expect(await waitUntil { losses.all == [1] && connection.state.isConnected })
            if case .closed(let closure) = first.state {
                #expect(closure.error?.message == "engine failed")
            } else {
                Issue.record("the failed transport is still open")
            }
            #expect(peer.connects == 2)
        }
    }

    @Test("close lets the owner end its protocol on the still-open transport after reconnecting has stopped")
    func closeRunsEnding() async throws {
        let peer = ScriptedPeer()
        let connection = ReconnectingConnection(configuration: quickConfiguration(), factory: peer.factory, handler: .messages { _ in })
        try await connection.start()
        let seen = Collected<Bool>()
        await connection.close { transport in
            seen.append(transport.state.isOpen)
            await transport.close(code: CloseCode(3000), reason: "engine shut down")
        }
        #expect(seen.all == [true])
        #expect(await waitUntil { peer.ends.first?.state.isClosed == true })
        if case .closed(let closure)? = peer.ends.first?.state {
            #expect(closure.code == CloseCode(3000))
        }
        #expect(peer.connects == 1)
    }

    // MARK: Hooks

    @Test("the ready handshake holds messages and link() callers until it returns, and the state stays connecting until then")
    func handshakeHoldsWork() async throws {
        let peer = ScriptedPeer()
        let log = Collected<String>()
        let gate = Gate()
        let handshakes = Collected<UInt64>()
        let states = Collected<String>()
        let inbox = Collected<String>()
        let connection = ReconnectingConnection(
            configuration: quickConfiguration(), factory: recording(peer, into: log),
            handler: .messages { inbox.append($0.text ?? "") },
            hooks: .init(handshake: { link in
                handshakes.append(link.generation)
                await gate.wait()
            }))
        connection.onStateChange { states.append($0.description) }
        let starting = Task { try await connection.start() }
        // Generous: at the start of a loaded run, CPU-bound tests hold the cooperative threads.
        #expect(await waitUntil(timeout: .seconds(30)) { handshakes.all == [1] })
        try await connection.send(.text("early"))
        let caller = Task { try await connection.link().generation }
        #expect(await waitUntil { connection.offlineWaitCount == 1 })
        // The transport is open, but nothing was written to it and nobody was given it.
        #expect(peer.connects == 1)
        #expect(log.all.isEmpty)
        #expect(connection.state.description == "connecting")
        #expect(connection.currentTransport == nil)
        #expect(states.all.isEmpty)

        gate.open()
        try await starting.value
        #expect(try await caller.value == 1)
        #expect(connection.state.isConnected)
        #expect(log.all == ["wrote:early"])
        #expect(states.all == ["connected"])
        #expect(await waitUntil { inbox.all == ["early"] })
        await connection.close()
    }

    @Test("a handshake that throws fails start with handshakeFailed wrapping its error, and the link is closed")
    func handshakeThrows() async throws {
        struct NotReady: Error {}
        let peer = ScriptedPeer()
        let connection = ReconnectingConnection(
            configuration: quickConfiguration(), factory: peer.factory, handler: .messages { _ in },
            hooks: .init(handshake: { _ in throw NotReady() }))
        do {
            try await connection.start()
            Issue.record("expected start to fail")
        } catch {
            #expect(error.code == .handshakeFailed)
            #expect(error.cause is NotReady)
        }
        #expect(await waitUntil { peer.ends.first?.state.isClosed == true })
        // A first connection that fails is not retried by default.
        #expect(peer.connects == 1)
        #expect(!connection.isRunning)
        #expect(connection.state.description.hasPrefix("disconnected("))
        await connection.close()
    }

    @Test("a handshake that never returns fails start with handshakeTimeout after the handshake timeout, and is stopped")
    func handshakeTimesOut() async throws {
        let peer = ScriptedPeer()
        let stopped = Collected<Bool>()
        let connection = ReconnectingConnection(
            configuration: quickConfiguration { $0.handshakeTimeout = .milliseconds(60) }, factory: peer.factory,
            handler: .messages { _ in },
            hooks: .init(handshake: { _ in
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    stopped.append(true)
                    throw error
                }
            }))
        let clock = ContinuousClock()
        let began = clock.now
        do {
            try await connection.start()
            Issue.record("expected start to fail")
        } catch {
            #expect(error.code == .handshakeTimeout)
        }
        #expect(clock.now - began >= .milliseconds(60))
        #expect(await waitUntil { stopped.all == [true] })
        #expect(await waitUntil { peer.ends.first?.state.isClosed == true })
        #expect(!connection.isRunning)
        await connection.close()
    }

    @Test("a goIdle decision stops trying: not running, reconnect throws notConnected, and start begins again")
    func goIdleStops() async throws {
        let peer = ScriptedPeer()
        let contexts = Collected<ConnectionFailureContext>()
        let connection = ReconnectingConnection(
            configuration: quickConfiguration(), factory: peer.factory, handler: .messages { _ in },
            hooks: .init(decideRetry: { _, context in
                contexts.append(context)
                return .goIdle
            }))
        try await connection.start()
        peer.cutAll()
        #expect(await waitUntil { !connection.isRunning })
        #expect(contexts.all.map(\.stage) == [.connected])
        #expect(connection.state.description.hasPrefix("disconnected("))
        #expect(peer.connects == 1)
        do {
            try await connection.reconnect()
            Issue.record("expected notConnected")
        } catch {
            #expect(error.code == .notConnected)
        }
        #expect(peer.connects == 1)
        try await connection.start()
        #expect(connection.state.isConnected)
        #expect(try await connection.link().generation == 2)
        #expect(peer.connects == 2)
        await connection.close()
    }

    @Test("a retry decision before the first connection keeps start waiting across failed attempts until one succeeds")
    func retryBeforeFirstConnection() async throws {
        let peer = ScriptedPeer()
        let attempts = Collected<Int>()
        let contexts = Collected<ConnectionFailureContext>()
        let states = Collected<String>()
        let factory: ReconnectingConnection.TransportFactory = { headers in
            attempts.append(attempts.all.count + 1)
            if attempts.all.count <= 3 { throw ScriptedPeer.Refused() }
            return try await peer.factory(headers)
        }
        let connection = ReconnectingConnection(
            configuration: quickConfiguration(), factory: factory, handler: .messages { _ in },
            hooks: .init(decideRetry: { _, context in
                contexts.append(context)
                return .retry
            }))
        connection.onStateChange { states.append($0.description) }
        try await connection.start()
        #expect(connection.state.isConnected)
        #expect(attempts.all == [1, 2, 3, 4])
        #expect(peer.connects == 1)
        #expect(contexts.all.map(\.attempt) == [0, 1, 2])
        #expect(contexts.all.allSatisfy { $0.stage == .opening && !$0.everConnected })
        // Never connected before: no reconnecting on the way.
        #expect(states.all == ["connected"])
        await connection.close()
    }

    @Test("the ready hook runs after the held messages were written and before link() callers resume")
    func readyHookOrder() async throws {
        let peer = ScriptedPeer()
        let log = Collected<String>()
        let gate = Gate()
        let handshakes = Collected<UInt64>()
        let connection = ReconnectingConnection(
            configuration: quickConfiguration(), factory: recording(peer, into: log), handler: .messages { _ in },
            hooks: .init(
                handshake: { link in
                    handshakes.append(link.generation)
                    await gate.wait()
                },
                ready: { link in log.append("ready@\(link.generation)") }))
        let starting = Task { try await connection.start() }
        // Generous: at the start of a loaded run, CPU-bound tests hold the cooperative threads.
        #expect(await waitUntil(timeout: .seconds(30)) { handshakes.all == [1] })
        try await connection.send(.text("a"))
        try await connection.send(.text("b"))
        let caller = Task {
            let link = try await connection.link()
            log.append("resumed@\(link.generation)")
        }
        #expect(await waitUntil { connection.offlineWaitCount == 1 })
        gate.open()
        try await starting.value
        try await caller.value
        #expect(log.all == ["wrote:a", "wrote:b", "ready@1", "resumed@1"])
        await connection.close()
    }
}

/// Opens once; whoever waits before (or after) goes on. A waiting task that is cancelled goes on too.
final class Gate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream()
    }

    func open() {
        continuation.finish()
    }

    func wait() async {
        for await _ in stream {}
    }
}

/// `peer`'s factory, with every message the connection writes logged as `wrote:<text>`.
private func recording(_ peer: ScriptedPeer, into log: Collected<String>) -> ReconnectingConnection.TransportFactory {
    { headers in RecordingTransport(try await peer.factory(headers), log: log) }
}

/// A transport that logs what is written to it, synchronously, before passing it on.
private final class RecordingTransport: MessageTransport {
    private let inner: any MessageTransport
    private let log: Collected<String>

    init(_ inner: any MessageTransport, log: Collected<String>) {
        self.inner = inner
        self.log = log
    }

    var state: TransportState { inner.state }

    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        inner.start(handler)
    }

    func enqueue(_ message: TransportMessage) throws(TransportError) {
        log.append("wrote:\(message.text ?? "?")")
        try inner.enqueue(message)
    }

    func send(_ message: TransportMessage) async throws(TransportError) {
        log.append("wrote:\(message.text ?? "?")")
        try await inner.send(message)
    }

    func close(code: CloseCode, reason: String) async {
        await inner.close(code: code, reason: reason)
    }

    func abort(_ error: TransportError) async {
        await inner.abort(error)
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        inner.stateUpdates()
    }
}

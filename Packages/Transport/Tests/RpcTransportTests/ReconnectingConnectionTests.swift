import RpcTransport
import RpcTransportInMemory
import Synchronization
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
            #expect(await eventually { inbox.all == ["one"] })
            // A call the server never answers, then the server dies.
            try await connection.send(.text("hold"))
            #expect(await eventually { peer.received.contains("hold") })
            peer.setMode(.refuse)
            peer.cutAll()
            #expect(await eventually { losses.all == [1] })
            #expect(await eventually { states.all.contains("reconnecting(2)") })
            peer.setMode(.accept)
            #expect(await eventually { connection.state.isConnected })
            let link = try await connection.link()
            #expect(link.generation == 2)
            try await connection.send(.text("two"))
            #expect(await eventually { inbox.all == ["one", "two"] })
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
            #expect(await eventually { first.pongsSent >= 2 })
            peer.goSilent()
            let answered = first.pongsSent
            #expect(await eventually { peer.connects >= 2 && connection.state.isConnected })
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
                #expect(await eventually { watched.connects >= 2 && connection.state.isConnected })
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
            #expect(await eventually { !connection.state.isConnected })
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
            #expect(await eventually { inbox.all == ["a", "b", "c"] })
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
            #expect(await eventually { !connection.state.isConnected })
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
        #expect(await eventually { !connection.isRunning })
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
        #expect(await eventually { connection.state.description.hasPrefix("reconnecting") })
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
        #expect(await eventually { peer.ends.first?.state.isClosed == true })
        let generation = try await connection.link().generation
        #expect(generation == 2)
        try await connection.send(.text("after"))
        #expect(await eventually { inbox.all == ["after"] })

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
        #expect(await eventually { connection.state.isConnected })
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
            #expect(await eventually { losses.all == [1] && connection.state.isConnected })
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
        #expect(await eventually { peer.ends.first?.state.isClosed == true })
        if case .closed(let closure)? = peer.ends.first?.state {
            #expect(closure.code == CloseCode(3000))
        }
        #expect(peer.connects == 1)
    }
}

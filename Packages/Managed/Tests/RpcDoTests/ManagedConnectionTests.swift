@testable import RpcDo
import RpcTransport
import CapnWebTesting
import RpcWire
import Synchronization
import Testing

@Suite("ManagedConnection and JSONRPCChannel (in-memory transport)")
struct ManagedConnectionTests {
    @Test("requests are matched to answers by id, concurrently")
    func correlation() async throws {
        let peer = JSONPeer()
        try await JSONRPCChannel.withChannel(configuration: fastConfiguration(), factory: peer.factory) { channel in
            async let a = channel.request("echo", params: .positional([1]))
            async let b = channel.request("echo", params: .positional([2]))
            async let c = channel.request("slow")
            let (x, y, z) = try await (a, b, c)
            #expect(x == .array([.integer(1)]))
            #expect(y == .array([.integer(2)]))
            #expect(z == .string("slow"))
        }
    }

    @Test("an error answer throws remote with the peer's error object; a silent peer times out")
    func errorsAndTimeouts() async throws {
        let peer = JSONPeer()
        try await JSONRPCChannel.withChannel(configuration: fastConfiguration(), factory: peer.factory) { channel in
            do {
                _ = try await channel.request("fail")
                Issue.record("expected an error")
            } catch let error as ManagedConnectionError {
                #expect(error.code == .remote)
                #expect(error.remote?.code == 7)
            }
            do {
                _ = try await channel.request("never", timeout: .milliseconds(100))
                Issue.record("expected a timeout")
            } catch let error as ManagedConnectionError {
                #expect(error.code == .timeout)
            }
        }
    }

    @Test("a lost connection fails plain requests in flight and resends idempotent ones")
    func lossInFlight() async throws {
        let peer = JSONPeer()
        try await JSONRPCChannel.withChannel(configuration: fastConfiguration(), factory: peer.factory) { channel in
            async let plain: Result<JSONValue, ManagedConnectionError> = Self.outcome { try await channel.request("never") }
            async let safe: Result<JSONValue, ManagedConnectionError> = Self.outcome {
                try await channel.request("echo", params: .positional(["again"]), idempotent: true)
            }
            _ = await safe
            #expect(await waitUntil { peer.received.filter { $0 == "never" }.count == 1 })
            peer.cutAll()
            let lost = await plain
            #expect(lost.failureCode == .connectionLost)
            #expect(await waitUntil { channel.connection.state.isConnected })
            #expect(peer.connects == 2)
        }
    }

    @Test("an idempotent request whose connection drops is sent again and answered")
    func idempotentResend() async throws {
        let peer = JSONPeer()
        try await JSONRPCChannel.withChannel(configuration: fastConfiguration(), factory: peer.factory) { channel in
            async let slow: Result<JSONValue, ManagedConnectionError> = Self.outcome { try await channel.request("slow", idempotent: true) }
            #expect(await waitUntil { peer.received.contains("slow") })
            peer.cutAll()
            #expect(await slow == .success(.string("slow")))
            #expect(peer.received.filter { $0 == "slow" }.count == 2)
        }
    }

    @Test("a request that timed out waiting for the connection was never sent, so it is retried and answered")
    func unsentRequestRetried() async throws {
        let peer = JSONPeer()
        let configuration = fastConfiguration { $0.maxRequestRetries = 20 }
        try await JSONRPCChannel.withChannel(configuration: configuration, factory: peer.factory) { channel in
            peer.setRefusing(true)
            peer.cutAll()
            #expect(await waitUntil { !channel.connection.state.isConnected })
            let waits = channel.connection.offlineWaitCount
            async let answer = Self.outcome { try await channel.request("echo", params: .positional([5]), timeout: .milliseconds(300)) }
            // The request waits for the connection, times out unsent and waits again: retried.
            try await waitUntil("the request to wait for the connection twice") {
                channel.connection.offlineWaitCount >= waits + 2
            }
            #expect(peer.received.isEmpty)
            peer.setRefusing(false)
            #expect(await answer == .success(.array([.integer(5)])))
            #expect(peer.received == ["echo"])
        }
    }

    @Test("messages sent while offline are queued up to the limit and flushed in order on reconnect")
    func offlineQueue() async throws {
        let peer = JSONPeer()
        let configuration = fastConfiguration { $0.offlinePolicy = .queue(limit: 2) }
        try await JSONRPCChannel.withChannel(configuration: configuration, factory: peer.factory) { channel in
            peer.setRefusing(true)
            peer.cutAll()
            #expect(await waitUntil { !channel.connection.state.isConnected })
            try await channel.notify("first")
            try await channel.notify("second")
            do {
                try await channel.notify("third")
                Issue.record("expected the queue to be full")
            } catch let error as ManagedConnectionError {
                #expect(error.code == .offlineQueueFull)
            }
            peer.setRefusing(false)
            #expect(await waitUntil { peer.received == ["first", "second"] })
        }
    }

    @Test("with the fail policy, sending while offline fails at once with notConnected")
    func failPolicy() async throws {
        let peer = JSONPeer()
        let configuration = fastConfiguration { $0.offlinePolicy = .fail }
        try await JSONRPCChannel.withChannel(configuration: configuration, factory: peer.factory) { channel in
            peer.setRefusing(true)
            peer.cutAll()
            #expect(await waitUntil { !channel.connection.state.isConnected })
            do {
                try await channel.notify("lost")
                Issue.record("expected notConnected")
            } catch let error as ManagedConnectionError {
                #expect(error.code == .notConnected)
            }
            let request = await Self.outcome { try await channel.request("echo") }
            #expect(request.failureCode == .notConnected)
        }
    }

    @Test("notifications from the peer reach the handler")
    func notifications() async throws {
        let peer = JSONPeer()
        let seen = CallLog()
        try await JSONRPCChannel.withChannel(
            configuration: fastConfiguration(), factory: peer.factory, onNotification: { method, _ in seen.append(method) }
        ) { channel in
            _ = try await channel.request("announce")
            #expect(await waitUntil { seen.all == ["news"] })
        }
    }

    @Test("interceptors wrap every request in order")
    func interceptorsOnRequests() async throws {
        let peer = JSONPeer()
        let log = CallLog()
        let configuration = fastConfiguration { $0.interceptors = [LoggingInterceptor(name: "a", log: log), LoggingInterceptor(name: "b", log: log)] }
        try await JSONRPCChannel.withChannel(configuration: configuration, factory: peer.factory) { channel in
            _ = try await channel.request("echo")
            _ = try? await channel.request("fail")
            #expect(log.all == ["a>echo", "b>echo", "b<echo", "a<echo", "a>fail", "b>fail", "b<fail", "a<fail"])
        }
    }

    @Test("gives up after maxAttempts, publishing disconnected with the error, and fails waiting requests")
    func givesUp() async throws {
        let peer = JSONPeer()
        let configuration = fastConfiguration { $0.reconnect = .exponentialBackoff(maxAttempts: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10)) }
        let channel = JSONRPCChannel(configuration: configuration, factory: peer.factory)
        let log = StateLog()
        let states = channel.connection.stateUpdates()
        let watcher = Task { for await state in states { log.append(state) } }
        try await channel.connection.start()
        peer.setRefusing(true)
        peer.cutAll()
        #expect(await waitUntil { log.all.last?.hasPrefix("disconnected(") == true })
        #expect(log.all.contains("reconnecting(1)"))
        #expect(log.all.contains("reconnecting(2)"))
        #expect(!log.all.contains("reconnecting(3)"))
        let late = await Self.outcome { try await channel.request("echo") }
        #expect(late.failureCode == .notConnected)
        await channel.connection.close()
        await watcher.value
        #expect(log.all.last == "disconnected")
    }

    @Test("a heartbeat that is not answered closes the transport and the connection reconnects")
    func heartbeat() async throws {
        let peer = JSONPeer()
        let answering = Mutex(false)
        let configuration = fastConfiguration {
            $0.heartbeat = Heartbeat(interval: .milliseconds(50), timeout: .milliseconds(50)) { _ in
                if answering.withLock({ $0 }) { return }
                try await Task.sleep(for: .seconds(60))
            }
        }
        try await JSONRPCChannel.withChannel(configuration: configuration, factory: peer.factory) { channel in
            #expect(await waitUntil { peer.connects >= 2 })
            answering.withLock { $0 = true }
            let reply = try await channel.request("echo", params: .positional([1]))
            #expect(reply == .array([.integer(1)]))
        }
    }

    @Test("closing the channel fails a request in flight at once with connectionLost")
    func closeFailsInFlight() async throws {
        let peer = JSONPeer()
        let channel = JSONRPCChannel(configuration: fastConfiguration(), factory: peer.factory)
        try await channel.connection.start()
        async let pending = Self.outcome { try await channel.request("never", timeout: .seconds(60)) }
        #expect(await waitUntil { peer.received.contains("never") })
        await channel.connection.close()
        #expect(await pending.failureCode == .connectionLost)
        #expect(channel.connection.state.description == "disconnected")
    }

    @Test("a JSON-RPC ping heartbeat keeps a peer that answers, even with an error, and drops one that is silent")
    func pingHeartbeat() async throws {
        let answering = JSONPeer()
        let configuration = fastConfiguration { $0.heartbeat = Heartbeat(interval: .milliseconds(50), timeout: .seconds(2)) { _ in } }
        try await JSONRPCChannel.withChannel(configuration: configuration, factory: answering.factory, pingMethod: "ping") { _ in
            #expect(await waitUntil { answering.received.filter { $0 == "ping" }.count >= 3 })
            #expect(answering.connects == 1)
        }
        let silent = JSONPeer()
        let quick = fastConfiguration { $0.heartbeat = Heartbeat(interval: .milliseconds(50), timeout: .milliseconds(100)) { _ in } }
        try await JSONRPCChannel.withChannel(configuration: quick, factory: silent.factory, pingMethod: "never") { _ in
            #expect(await waitUntil { silent.connects >= 2 })
        }
    }

    @Test("the first connection failing makes start throw notConnected")
    func firstConnectFails() async throws {
        let peer = JSONPeer()
        peer.setRefusing(true)
        let connection = ManagedConnection(configuration: fastConfiguration(), factory: peer.factory, handler: .messages { _ in })
        do {
            try await connection.start()
            Issue.record("expected start to fail")
        } catch {
            #expect(error.code == .notConnected)
        }
        await connection.close()
    }

    @Test("headers changed at runtime reach the factory on the next connect; the status snapshot follows the state")
    func headersAndStatus() async throws {
        let seen = Mutex<[[String: String]]>([])
        let ends = Mutex<[InMemoryTransport]>([])
        let factory: ManagedConnection.TransportFactory = { headers in
            seen.withLock { $0.append(headers) }
            let (client, server) = InMemoryTransport.makePair()
            ends.withLock { $0.append(server) }
            return client
        }
        let configuration = fastConfiguration { $0.headers = ["Auth": "a"] }
        try await ManagedConnection.withConnection(configuration: configuration, factory: factory, handler: .messages { _ in }) { connection in
            #expect(connection.status.isConnected)
            connection.updateHeader("Auth", value: "b")
            connection.updateHeader("Extra", value: "x")
            for end in ends.withLock({ $0 }) { end.disconnect() }
            #expect(await waitUntil { seen.withLock { $0.count } == 2 })
            #expect(seen.withLock { $0 } == [["Auth": "a"], ["Auth": "b", "Extra": "x"]])
            #expect(await waitUntil { connection.status.isConnected })
        }
    }

    static func outcome(_ body: () async throws -> JSONValue) async -> Result<JSONValue, ManagedConnectionError> {
        do {
            return .success(try await body())
        } catch let error as ManagedConnectionError {
            return .failure(error)
        } catch {
            Issue.record("unexpected error \(error)")
            return .failure(ManagedConnectionError(.invalidRequest, "\(error)"))
        }
    }
}

extension Result where Failure == ManagedConnectionError {
    var failureCode: ManagedConnectionError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}

/// Fast reconnects for tests.
func fastConfiguration(_ change: (inout ManagedConnectionConfiguration) -> Void = { _ in }) -> ManagedConnectionConfiguration {
    var configuration = ManagedConnectionConfiguration(
        reconnect: .exponentialBackoff(maxAttempts: 100, baseDelay: .milliseconds(10), maxDelay: .milliseconds(100)),
        requestTimeout: .seconds(10))
    change(&configuration)
    return configuration
}

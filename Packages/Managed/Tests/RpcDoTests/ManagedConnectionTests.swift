@testable import RpcDo
import RpcDoTesting
import RpcTransport
import CapnWebTesting
import RpcWire
import Synchronization
import Testing

@Suite("A managed connection's settings on the supervised connection (in-memory transport)")
struct ManagedConnectionTests {
    @Test("messages sent while offline are queued up to the limit and flushed in order on reconnect")
    func offlineQueue() async throws {
        let peer = JSONRPCTestPeer()
        let configuration = fastConfiguration { $0.offlinePolicy = .queue(limit: 2) }
        try await ReconnectingConnection.withReconnectingConnection(configuration: configuration.connectionConfiguration, factory: peer.factory, handler: .messages { _ in }) { connection in
            peer.setRefusing(true)
            peer.cutAll()
            #expect(await waitUntil { !connection.state.isConnected })
            try await connection.send(notification("first"))
            try await connection.send(notification("second"))
            let third = try notification("third")
            do {
                try await connection.send(third)
                Issue.record("expected the queue to be full")
            } catch let error as TransportError {
                #expect(error.code == .offlineQueueFull)
            }
            peer.setRefusing(false)
            #expect(await waitUntil { peer.received == ["first", "second"] })
        }
    }

    @Test("with the fail policy, sending or waiting while offline fails at once with notConnected")
    func failPolicy() async throws {
        let peer = JSONRPCTestPeer()
        let configuration = fastConfiguration { $0.offlinePolicy = .fail }
        try await ReconnectingConnection.withReconnectingConnection(configuration: configuration.connectionConfiguration, factory: peer.factory, handler: .messages { _ in }) { connection in
            peer.setRefusing(true)
            peer.cutAll()
            #expect(await waitUntil { !connection.state.isConnected })
            let lost = try notification("lost")
            do {
                try await connection.send(lost)
                Issue.record("expected notConnected")
            } catch let error as TransportError {
                #expect(error.code == .notConnected)
            }
            do {
                try await connection.waitUntilConnected()
                Issue.record("expected notConnected")
            } catch let error as TransportError {
                #expect(error.code == .notConnected)
            }
        }
    }

    @Test("gives up after maxAttempts, publishing disconnected with the error, and fails whoever waits")
    func givesUp() async throws {
        let peer = JSONRPCTestPeer()
        let configuration = fastConfiguration { $0.reconnect = .exponentialBackoff(maxAttempts: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10)) }
        let connection = ReconnectingConnection(configuration: configuration.connectionConfiguration, factory: peer.factory, handler: .messages { _ in })
        let log = StateLog()
        let states = connection.stateUpdates()
        let watcher = Task { for await state in states { log.append(state) } }
        try await connection.start()
        peer.setRefusing(true)
        peer.cutAll()
        #expect(await waitUntil { log.all.last?.hasPrefix("disconnected(") == true })
        #expect(log.all.contains("reconnecting(1)"))
        #expect(log.all.contains("reconnecting(2)"))
        #expect(!log.all.contains("reconnecting(3)"))
        do {
            try await connection.waitUntilConnected()
            Issue.record("expected notConnected")
        } catch {
            #expect(error.code == .notConnected)
        }
        await connection.close()
        await watcher.value
        #expect(log.all.last == "disconnected")
    }

    @Test("a heartbeat that is not answered closes the transport and the connection reconnects")
    func heartbeat() async throws {
        let peer = JSONRPCTestPeer()
        let answering = Mutex(false)
        let configuration = fastConfiguration {
            $0.heartbeat = Heartbeat(interval: .milliseconds(50), timeout: .milliseconds(50)) { _ in
                if answering.withLock({ $0 }) { return }
                try await Task.sleep(for: .seconds(60))
            }
        }
        try await ReconnectingConnection.withReconnectingConnection(configuration: configuration.connectionConfiguration, factory: peer.factory, handler: .messages { _ in }) { connection in
            #expect(await waitUntil { peer.connects >= 2 })
            answering.withLock { $0 = true }
            try await connection.waitUntilConnected()
            #expect(connection.state.isConnected)
        }
    }

    @Test("the first connection failing makes start throw the factory's error")
    func firstConnectFails() async throws {
        let peer = JSONRPCTestPeer()
        peer.setRefusing(true)
        let connection = ReconnectingConnection(configuration: fastConfiguration().connectionConfiguration, factory: peer.factory, handler: .messages { _ in })
        do {
            try await connection.start()
            Issue.record("expected start to fail")
        } catch {
            #expect(error.code == .connectFailed)
        }
        await connection.close()
    }

    @Test("headers changed at runtime reach the factory on the next connect")
    func headersAndStatus() async throws {
        let seen = Mutex<[[String: String]]>([])
        let ends = Mutex<[InMemoryTransport]>([])
        let factory: ReconnectingConnection.TransportFactory = { headers in
            seen.withLock { $0.append(headers) }
            let (client, server) = InMemoryTransport.makePair()
            ends.withLock { $0.append(server) }
            return client
        }
        let configuration = fastConfiguration { $0.headers = ["Auth": "a"] }
        try await ReconnectingConnection.withReconnectingConnection(configuration: configuration.connectionConfiguration, factory: factory, handler: .messages { _ in }) { connection in
            #expect(connection.state.isConnected)
            connection.updateHeader("Auth", value: "b")
            connection.updateHeader("Extra", value: "x")
            for end in ends.withLock({ $0 }) { end.disconnect() }
            #expect(await waitUntil { seen.withLock { $0.count } == 2 })
            #expect(seen.withLock { $0 } == [["Auth": "a"], ["Auth": "b", "Extra": "x"]])
            #expect(await waitUntil { connection.state.isConnected })
        }
    }
}

/// A JSON-RPC notification of `method`, as a text message.
func notification(_ method: String) throws -> TransportMessage {
    .text(utf8: try JSONRPCCodec().encode(.notification(method: method, params: nil)))
}

/// Fast reconnects for tests.
func fastConfiguration(_ change: (inout ManagedConnectionConfiguration) -> Void = { _ in }) -> ManagedConnectionConfiguration {
    var configuration = ManagedConnectionConfiguration(
        reconnect: .exponentialBackoff(maxAttempts: 100, baseDelay: .milliseconds(10), maxDelay: .milliseconds(100)),
        requestTimeout: .seconds(10))
    change(&configuration)
    return configuration
}

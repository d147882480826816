@_spi(RpcImplementation) import RpcTransport
import RpcDo
import RpcDoTesting
import RpcWire
import Synchronization
import Testing
@testable import Tinyvex

/// A started channel to `peer` with quick reconnects, closed after `body`.
private func withChannel<T>(
    _ peer: JSONRPCTestPeer,
    maxRetries: Int = 3,
    offlineQueueLimit: Int? = 256,
    handshake: JSONRPCChannel.Handshake? = nil,
    onNotification: @escaping @Sendable (String, JSONRPCParams?) -> Void = { _, _ in },
    _ body: (JSONRPCChannel) async throws -> T
) async throws -> T {
    let backoff = Backoff.exponential(base: .milliseconds(10), max: .milliseconds(100))
    let channel = JSONRPCChannel(
        configuration: ReconnectingConnectionConfiguration(
            reconnect: ReconnectPolicy(maxAttempts: 100, backoff: backoff), offlineQueueLimit: offlineQueueLimit),
        settings: ManagedChannel.Settings(requestTimeout: .seconds(10), maxRetries: maxRetries, backoff: backoff, maxRetryDelay: .milliseconds(100)),
        factory: peer.factory, handshake: handshake, onNotification: onNotification)
    try await channel.connection.start()
    let outcome: Result<T, any Error>
    do {
        outcome = .success(try await body(channel))
    } catch {
        outcome = .failure(error)
    }
    await channel.connection.close()
    return try outcome.get()
}

/// What a request returned or its error.
private func outcome(_ body: () async throws(ManagedConnectionError) -> JSONValue) async -> Result<JSONValue, ManagedConnectionError> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

extension Result where Failure == ManagedConnectionError {
    fileprivate var failureCode: ManagedConnectionError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}

@Suite("Tinyvex's JSON-RPC channel on the supervised connection (in-memory transport)", .timeLimit(.minutes(1)))
struct JSONRPCChannelTests {
    @Test("requests are matched to answers by id, concurrently")
    func correlation() async throws {
        let peer = JSONRPCTestPeer()
        try await withChannel(peer) { channel in
            async let a = channel.request("echo", params: .positional([1]))
            async let b = channel.request("echo", params: .positional([2]))
            async let c = channel.request("held")
            try await waitUntil("the held request to arrive") { peer.received.contains("held") }
            peer.release()
            let (x, y, z) = try await (a, b, c)
            #expect(x == .array([.integer(1)]))
            #expect(y == .array([.integer(2)]))
            #expect(z == .string("held"))
        }
    }

    @Test("an error answer throws remote with the peer's error object; a silent peer times out")
    func errorsAndTimeouts() async throws {
        let peer = JSONRPCTestPeer()
        try await withChannel(peer) { channel in
            let failed = await outcome { () async throws(ManagedConnectionError) in try await channel.request("fail") }
            guard case .failure(let error) = failed else {
                Issue.record("expected an error, got \(failed)")
                return
            }
            #expect(error.code == .remote)
            #expect(error.remote?.code == 7)
            let silent = await outcome { () async throws(ManagedConnectionError) in try await channel.request("never", timeout: .milliseconds(100)) }
            #expect(silent.failureCode == .timeout)
            #expect(peer.received.filter { $0 == "never" }.count == 1)
        }
    }

    @Test("a lost connection fails a plain request in flight with connectionLost, and the connection comes back")
    func lossInFlight() async throws {
        let peer = JSONRPCTestPeer()
        try await withChannel(peer) { channel in
            async let plain = outcome { () async throws(ManagedConnectionError) in try await channel.request("never") }
            try await waitUntil("the request to arrive") { peer.received.contains("never") }
            peer.cutAll()
            #expect(await plain.failureCode == .connectionLost)
            try await waitUntil("reconnected") { channel.connection.state.isConnected }
            #expect(peer.connects == 2)
            #expect(peer.received.filter { $0 == "never" }.count == 1)
        }
    }

    @Test("an idempotent request whose connection drops is sent again on the next link and answered")
    func idempotentResend() async throws {
        let peer = JSONRPCTestPeer()
        try await withChannel(peer) { channel in
            async let held = outcome { () async throws(ManagedConnectionError) in try await channel.request("held", idempotent: true) }
            try await waitUntil("the request to arrive") { peer.received.contains("held") }
            peer.cutAll()
            try await waitUntil("the request to arrive again") { peer.received.filter { $0 == "held" }.count == 2 }
            peer.release()
            #expect(await held == .success(.string("held")))
        }
    }

    @Test("a request that timed out waiting for the connection was never sent, so it is retried and answered")
    func unsentRequestRetried() async throws {
        let peer = JSONRPCTestPeer()
        try await withChannel(peer, maxRetries: 20) { channel in
            peer.setRefusing(true)
            peer.cutAll()
            try await waitUntil("disconnected") { !channel.connection.state.isConnected }
            let waits = channel.connection.offlineWaitCount
            async let answer = outcome { () async throws(ManagedConnectionError) in
                try await channel.request("echo", params: .positional([5]), timeout: .milliseconds(300))
            }
            // The request waits for the connection, times out unsent and waits again: retried.
            try await waitUntil("the request to wait for the connection twice") { channel.connection.offlineWaitCount >= waits + 2 }
            #expect(peer.received.isEmpty)
            peer.setRefusing(false)
            #expect(await answer == .success(.array([.integer(5)])))
            #expect(peer.received == ["echo"])
        }
    }

    @Test("notifications from the peer reach the handler")
    func notifications() async throws {
        let peer = JSONRPCTestPeer()
        let seen = Recorder<String>()
        try await withChannel(peer, onNotification: { method, _ in seen.append(method) }) { channel in
            _ = try await channel.request("announce")
            #expect(seen.all == ["news"])
        }
    }

    @Test("the handshake's request goes on the new link before it is ready; a request made meanwhile waits for it")
    func handshakeFirst() async throws {
        let peer = JSONRPCTestPeer()
        let handshakes = Recorder<UInt64>()
        try await withChannel(peer, handshake: { channel, link in
            handshakes.append(link.generation)
            // The first link's is answered at once; the second's when the test releases it.
            _ = try await channel.request(on: link, link.generation == 1 ? "echo" : "held", timeout: .seconds(10))
        }) { channel in
            peer.cutAll()
            try await waitUntil("the second handshake to wait for its answer") { peer.received.contains("held") }
            async let echo = channel.request("echo", params: .positional([3]))
            #expect(!channel.connection.state.isConnected)
            peer.release()
            #expect(try await echo == .array([.integer(3)]))
            #expect(peer.received == ["echo", "held", "echo"])
            #expect(handshakes.all == [1, 2])
        }
    }

    @Test("closing the connection fails a request in flight at once with connectionLost")
    func closeFailsInFlight() async throws {
        let peer = JSONRPCTestPeer()
        let backoff = Backoff.exponential(base: .milliseconds(10), max: .milliseconds(100))
        let channel = JSONRPCChannel(
            configuration: ReconnectingConnectionConfiguration(reconnect: ReconnectPolicy(maxAttempts: 100, backoff: backoff)),
            settings: ManagedChannel.Settings(requestTimeout: .seconds(60), maxRetries: 3, backoff: backoff, maxRetryDelay: .milliseconds(100)),
            factory: peer.factory, onNotification: { _, _ in })
        try await channel.connection.start()
        async let pending = outcome { () async throws(ManagedConnectionError) in try await channel.request("never") }
        try await waitUntil("the request to arrive") { peer.received.contains("never") }
        await channel.connection.close()
        #expect(await pending.failureCode == .connectionLost)
        #expect(channel.connection.state.description == "disconnected")
        #expect(channel.pendingCount == 0)
    }
}

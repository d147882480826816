@testable import RpcDo
import RpcTesting
import RpcTransport
import RpcTransportInMemory
import Synchronization
import Testing

/// A peer of a tiny text protocol over in-memory pairs: a request is `id method`, an answer
/// `id result`. `echo` is answered at once; `hold` only when the test releases it.
private final class LinePeer: Sendable {
    private struct State {
        var ends: [InMemoryTransport] = []
        var received: [String] = []
        var held: [(InMemoryTransport, String)] = []
    }

    private let state = Mutex(State())
    var received: [String] { state.withLock { $0.received } }
    var heldCount: Int { state.withLock { $0.held.count } }
    var connects: Int { state.withLock { $0.ends.count } }

    var factory: ReconnectingConnection.TransportFactory {
        { [self] _ in
            let (client, server) = InMemoryTransport.makePair()
            state.withLock { $0.ends.append(server) }
            server.start { [self] event in
                guard case .message(let message) = event, let text = message.text else { return }
                let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return }
                let id = parts[0]
                let method = parts[1]
                let hold = state.withLock { state -> Bool in
                    state.received.append(method)
                    if method == "hold" { state.held.append((server, id)) }
                    return method == "hold"
                }
                if !hold { try? server.enqueue(.text("\(id) \(method)")) }
            }
            return client
        }
    }

    /// Answers the held requests, newest first.
    func releaseHeld() {
        let held = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for (end, id) in held.reversed() { try? end.enqueue(.text("\(id) released")) }
    }

    func cutAll() {
        let ends = state.withLock { state in
            defer { state.held = [] }
            return state.ends
        }
        for end in ends { end.disconnect() }
    }
}

/// Records the calls interceptors see.
private struct RecordingInterceptor: ClientInterceptor {
    let seen: RpcTesting.Recorder<String>

    func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
        seen.append("\(call.method) \(call.metadata["tenant"] ?? "-")")
        return try await next(call)
    }
}

@Suite("ManagedChannel (the managed layer's one call path, in memory)")
struct ManagedChannelTests {
    /// A started channel of the line protocol on `peer`, for `body`.
    private func withChannel(
        _ peer: LinePeer,
        interceptors: [any ClientInterceptor] = [],
        maxRetries: Int = 2,
        handshake: (@Sendable (ManagedChannel<ManagedConnectionError>, ReconnectingConnection.Link) async throws -> Void)? = nil,
        _ body: (ManagedChannel<ManagedConnectionError>) async throws -> Void
    ) async throws {
        let box = Mutex<ManagedChannel<ManagedConnectionError>?>(nil)
        var hooks = ReconnectingConnection.Hooks()
        if let handshake {
            hooks.handshake = { link in
                guard let channel = box.withLock({ $0 }) else { return }
                try await handshake(channel, link)
            }
        }
        var configuration = ReconnectingConnectionConfiguration()
        configuration.reconnect = ReconnectPolicy(maxAttempts: 5, backoff: Backoff(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
        let connection = ReconnectingConnection(
            configuration: configuration, factory: peer.factory,
            handler: .messages { message in
                guard let text = message.text else { return }
                let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2, let id = UInt64(parts[0]) else { return }
                box.withLock { $0 }?.answer(id, with: .success(.string(parts[1])))
            },
            hooks: hooks)
        let channel = ManagedChannel<ManagedConnectionError>(
            connection: connection,
            settings: .init(
                requestTimeout: .seconds(10), maxRetries: maxRetries, backoff: Backoff(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5)),
                maxRetryDelay: .milliseconds(5), interceptors: interceptors))
        box.withLock { $0 = channel }
        let outcome: Result<Void, any Error>
        do {
            try await connection.start()
            try await body(channel)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await connection.close()
        #expect(channel.pendingCount == 0)
        #expect(channel.armedDeadlineCount == 0)
        try outcome.get()
    }

    private static func line(_ method: String) -> @Sendable (UInt64) -> TransportMessage {
        { id in .text("\(id) \(method)") }
    }

    @Test("each answer goes to the request with its id, whatever order the answers come in")
    func answersByID() async throws {
        let peer = LinePeer()
        try await withChannel(peer) { channel in
            async let first = channel.request(channel.call("hold"), encode: Self.line("hold"))
            async let second = channel.request(channel.call("hold"), encode: Self.line("hold"))
            try await waitUntil("both requests are held") { peer.heldCount == 2 }
            peer.releaseHeld()
            #expect(try await first == .string("released"))
            #expect(try await second == .string("released"))
            #expect(try await channel.request(channel.call("echo"), encode: Self.line("echo")) == .string("echo"))
        }
    }

    @Test("a request in flight when its link is lost fails with connectionLost unless it is idempotent, which is sent again on the next link")
    func lossFailsOrResends() async throws {
        let peer = LinePeer()
        try await withChannel(peer) { channel in
            let plain = Task { try await channel.request(channel.call("hold"), encode: Self.line("hold")) }
            let idempotent = Task { try await channel.request(channel.call("hold", isIdempotent: true), encode: Self.line("hold")) }
            try await waitUntil("both requests are held") { peer.heldCount == 2 }
            peer.cutAll()
            await #expect(throws: ManagedConnectionError.self) { try await plain.value }
            do {
                _ = try await plain.value
            } catch let error as ManagedConnectionError {
                #expect(error.code == .connectionLost)
            }
            // The idempotent one went out again on the new link, where the peer holds it.
            try await waitUntil("the idempotent request is held on the second link") { peer.connects == 2 && peer.heldCount == 1 }
            peer.releaseHeld()
            #expect(try await idempotent.value == .string("released"))
        }
    }

    @Test("interceptors see every request with its metadata, and a request nobody answers fails with timeout after its deadline")
    func interceptorsAndDeadline() async throws {
        let peer = LinePeer()
        let seen = RpcTesting.Recorder<String>()
        try await withChannel(peer, interceptors: [RecordingInterceptor(seen: seen)], maxRetries: 0) { channel in
            _ = try await channel.request(channel.call("echo", metadata: ["tenant": "a"]), encode: Self.line("echo"))
            do {
                _ = try await channel.request(channel.call("hold", timeout: .milliseconds(50)), encode: Self.line("hold"))
                Issue.record("a held request was answered")
            } catch let error as ManagedConnectionError {
                #expect(error.code == .timeout)
            }
            #expect(seen.all == ["echo a", "hold -"])
        }
    }

    @Test("deadlines are kept by the channel's timer: a shorter one armed later passes first, each fails only its own request, a late answer is dropped")
    func deadlinesOnOneTimer() async throws {
        let peer = LinePeer()
        try await withChannel(peer, maxRetries: 0) { channel in
            let long = Task { try await channel.request(channel.call("hold", timeout: .seconds(30)), encode: Self.line("hold")) }
            try await waitUntil("the long request is held") { peer.heldCount == 1 }
            let started = ContinuousClock.now
            do {
                _ = try await channel.request(channel.call("hold", timeout: .milliseconds(40)), encode: Self.line("hold"))
                Issue.record("a held request was answered")
            } catch let error as ManagedConnectionError {
                #expect(error.code == .timeout)
            }
            // Not before its own deadline, though the timer first slept for the long one's.
            #expect(ContinuousClock.now - started >= .milliseconds(40))
            #expect(channel.armedDeadlineCount == 1)
            // Both held requests are answered now: the timed-out one's answer finds nobody.
            peer.releaseHeld()
            #expect(try await long.value == .string("released"))
            #expect(channel.armedDeadlineCount == 0)
        }
    }

    @Test("a request made while the link is down waits for the next ready handshake, whose own request goes out on its link first")
    func handshakeFirst() async throws {
        let peer = LinePeer()
        try await withChannel(peer, handshake: { channel, link in
            _ = try await channel.request(on: link, timeout: .seconds(5), encode: Self.line("hello"))
        }) { channel in
            #expect(try await channel.request(channel.call("echo"), encode: Self.line("echo")) == .string("echo"))
            let states = RpcTesting.Recorder<String>()
            channel.connection.onStateChange { states.append($0.description) }
            peer.cutAll()
            // Recorded where it is published, so a quick reconnect cannot hide the loss.
            try await waitUntil("the loss is published") { states.all.contains("reconnecting(1)") }
            // Made after the loss: it goes out only once a link is ready, after its handshake.
            let echo = try await channel.request(channel.call("echo", isIdempotent: true), encode: Self.line("echo"))
            #expect(echo == .string("echo"))
            #expect(peer.received == ["hello", "echo", "hello", "echo"])
        }
    }

    @Test("an answer nobody waits for is dropped, and failPending fails what waits on a link")
    func strayAnswersAndFailPending() async throws {
        let peer = LinePeer()
        try await withChannel(peer) { channel in
            channel.answer(999, with: .success(.null))
            let held = Task { try await channel.request(channel.call("hold"), encode: Self.line("hold")) }
            try await waitUntil("the request is held") { peer.heldCount == 1 }
            channel.failPending(with: ManagedConnectionError(.remote, "the peer named no request"))
            do {
                _ = try await held.value
                Issue.record("a failed request returned")
            } catch let error as ManagedConnectionError {
                #expect(error.code == .remote)
            }
        }
    }
}

import RpcTransport
import RpcTesting
import RpcTransportInMemory
import Synchronization
import Testing

/// Collects the events a handler receives, for assertions.
final class EventRecorder: Sendable {
    private let events = Mutex<[TransportEvent]>([])

    func record(_ event: TransportEvent) {
        events.withLock { $0.append(event) }
    }

    var count: Int { events.withLock { $0.count } }

    var messages: [String] {
        events.withLock { events in
            events.compactMap { event in
                if case .message(let message) = event { return message.text }
                return nil
            }
        }
    }

    var closure: TransportClosure? {
        events.withLock { events in
            for event in events {
                if case .closed(let closure) = event { return closure }
            }
            return nil
        }
    }

    /// Waits until `count` events have arrived; throws ``WaitTimedOut`` when they have not
    /// after `timeout`.
    func wait(for count: Int, timeout: Duration = .seconds(10)) async throws {
        try await waitUntil("\(count) events", timeout: timeout) { self.count >= count }
    }
}

@Suite("In-memory transport")
struct InMemoryTransportTests {
    @Test("delivers messages in order in both directions, including those sent before start")
    func deliversInOrder() async throws {
        let (client, server) = InMemoryTransport.makePair()
        try client.enqueue(.text("early"))
        let serverEvents = EventRecorder()
        server.start { serverEvents.record($0) }
        for index in 0..<100 {
            try client.enqueue(.text("m\(index)"))
        }
        try await serverEvents.wait(for: 101)
        #expect(serverEvents.messages == ["early"] + (0..<100).map { "m\($0)" })

        let clientEvents = EventRecorder()
        client.start { clientEvents.record($0) }
        try await server.send(.binary([1, 2, 3]))
        try await clientEvents.wait(for: 1)
        #expect(clientEvents.messages.isEmpty)  // binary, not text
        await client.close()
    }

    @Test("an echo handler that sends from inside its callback does not re-enter the sender")
    func echoFromHandler() async throws {
        let (client, server) = InMemoryTransport.makePair()
        server.start { event in
            if case .message(let message) = event {
                try? server.enqueue(message)
            }
        }
        let events = EventRecorder()
        client.start { events.record($0) }
        for index in 0..<10 {
            try client.enqueue(.text("\(index)"))
        }
        try await events.wait(for: 10)
        #expect(events.messages == (0..<10).map { "\($0)" })
        await client.close()
    }

    @Test("close reaches the peer with the code and reason, and later sends fail as closed")
    func closeHandshake() async throws {
        let (client, server) = InMemoryTransport.makePair()
        let events = EventRecorder()
        server.start { events.record($0) }
        await client.close(code: .applicationError, reason: "bye")
        try await events.wait(for: 1)
        let closure = try #require(events.closure)
        #expect(closure.code == .applicationError)
        #expect(closure.reason == "bye")
        #expect(!closure.initiatedLocally)
        #expect(closure.isClean)
        #expect(throws: TransportError.self) { try server.enqueue(.text("late")) }
        #expect(client.state.isClosed && server.state.isClosed)
    }

    @Test("once both ends are closed, the pair and what its handlers hold are freed")
    func closedPairIsFreed() async throws {
        /// Stands for a protocol engine: it holds its transport, whose handler holds it.
        final class Owner: Sendable {
            let transport: InMemoryTransport
            init(_ transport: InMemoryTransport) { self.transport = transport }
        }
        weak var weakClient: InMemoryTransport?
        weak var weakServer: InMemoryTransport?
        weak var weakOwner: Owner?
        do {
            let (client, server) = InMemoryTransport.makePair()
            let owner = Owner(server)
            server.start { event in _ = owner }
            client.start { _ in }
            try client.enqueue(.text("x"))
            await client.close()
            try await waitUntil("the server end to close") { server.state.isClosed }
            (weakClient, weakServer, weakOwner) = (client, server, owner)
        }
        try await waitUntil("the pair and its owner to be freed") {
            weakClient == nil && weakServer == nil && weakOwner == nil
        }
    }

    @Test("dropped messages never arrive and the rest keep their order")
    func dropFault() async throws {
        let (client, server) = InMemoryTransport.makePair()
        let events = EventRecorder()
        server.start { events.record($0) }
        client.inject(.dropNext(2))
        client.inject(.drop { $0.text == "skip" })
        for text in ["a", "b", "c", "skip", "d"] {
            try client.enqueue(.text(text))
        }
        // Delivery keeps the order of sending: once a marker sent last has arrived, every
        // message not dropped has arrived before it.
        try client.enqueue(.text("end"))
        try await events.wait(for: 3)
        #expect(events.messages == ["c", "d", "end"])
        #expect(events.count == 3)
        await client.close()
    }

    @Test("a delayed message is held back: one sent after it without the delay overtakes it")
    func delayFault() async throws {
        let (client, server) = InMemoryTransport.makePair()
        let events = EventRecorder()
        server.start { events.record($0) }
        // The receiving end handles its deliveries in order: "fast" is handed to it at once,
        // "slow" only once its delay is over, so "fast" comes first however loaded the machine
        // (unless the delay is ignored).
        client.inject(.delay(.milliseconds(200)))
        try client.enqueue(.text("slow"))
        client.clearFaults()
        try client.enqueue(.text("fast"))
        // The delayed message still arrives.
        try await events.wait(for: 2)
        #expect(events.messages == ["fast", "slow"])
        await client.close()
    }

    @Test("a disconnect closes both ends with 1006 and an error, like a dropped socket")
    func disconnectFault() async throws {
        let (client, server) = InMemoryTransport.makePair()
        let clientEvents = EventRecorder()
        let serverEvents = EventRecorder()
        client.start { clientEvents.record($0) }
        server.start { serverEvents.record($0) }
        client.inject(.disconnectAfter(2))
        try client.enqueue(.text("1"))
        try client.enqueue(.text("2"))
        try await serverEvents.wait(for: 3)
        #expect(serverEvents.messages == ["1", "2"])
        let closure = try #require(serverEvents.closure)
        #expect(closure.code == .abnormal)
        #expect(closure.error?.code == .closed)
        try await clientEvents.wait(for: 1)
        #expect(clientEvents.closure?.code == .abnormal)
    }

    @Test("the inbound sequence ends after a clean close and throws after a failure")
    func inboundSequence() async throws {
        let (client, server) = InMemoryTransport.makePair()
        let inbound = server.inboundMessages()
        try client.enqueue(.text("x"))
        try client.enqueue(.text("y"))
        await client.close()
        var received: [String] = []
        for try await message in inbound {
            received.append(message.text ?? "")
        }
        #expect(received == ["x", "y"])

        let (other, peer) = InMemoryTransport.makePair()
        let failing = peer.inboundMessages()
        other.disconnect()
        await #expect(throws: TransportError.self) {
            for try await _ in failing {}
        }
    }

    @Test("messages above the size limit are refused with messageTooLarge")
    func sizeLimit() async throws {
        let (client, _) = InMemoryTransport.makePair(configuration: .init(maxMessageSize: 4))
        #expect {
            try client.enqueue(.binary([1, 2, 3, 4, 5]))
        } throws: { error in
            (error as? TransportError)?.code == .messageTooLarge
        }
        try client.enqueue(.binary([1, 2, 3, 4]))
        await client.close()
    }

    @Test("send waits while the outbound buffer is full and resumes as messages are delivered")
    func backpressure() async throws {
        let (client, server) = InMemoryTransport.makePair(configuration: .init(outboundBufferLimit: 2))
        let events = EventRecorder()
        server.start { events.record($0) }
        client.inject(.delay(.milliseconds(30)))
        for index in 0..<6 {
            try await client.send(.text("\(index)"))
        }
        try await events.wait(for: 6)
        #expect(events.messages == (0..<6).map { "\($0)" })
        await client.close()
    }

    @Test("state updates start with the current state and finish after closed")
    func stateUpdates() async throws {
        let (client, _) = InMemoryTransport.makePair()
        let updates = client.stateUpdates()
        await client.close()
        var seen: [String] = []
        for await state in updates {
            seen.append(state.isOpen ? "open" : state.isClosed ? "closed" : "other")
        }
        #expect(seen == ["open", "closed"])
    }

    @Test("every transport error code has a distinct stable raw value")
    func errorCodes() {
        let raw = TransportError.Code.all.map(\.rawValue)
        #expect(Set(raw).count == raw.count)
        for code in TransportError.Code.all {
            #expect(TransportError.Code(rawValue: code.rawValue) == code)
        }
        #expect(TransportError.Code.closed.rawValue == "closed")
        #expect(CloseCode.messageTooBig.rawValue == 1009)
        #expect(!CloseCode.abnormal.isSendable && CloseCode.applicationError.isSendable)
    }
}

import Foundation
import RpcTransport
import RpcTransportNIO
import RpcTransportTesting
import Testing

@Suite("WebSocket round trips")
struct WebSocketRoundTripTests {
    /// Payload sizes around the frame header's length encodings, and large messages.
    static let sizes = [0, 1, 125, 126, 65_535, 65_536, 1 << 20, 16 << 20]

    /// A text message of exactly `size` UTF-8 bytes, with multi-byte characters.
    static func text(size: Int) -> TransportMessage {
        .text(String(repeating: "é", count: size / 2) + (size % 2 == 1 ? "a" : ""))
    }

    /// A binary message of `size` bytes.
    static func binary(size: Int) -> TransportMessage {
        .binary((0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    @Test("Text and binary messages of boundary sizes come back intact over TCP", arguments: sizes)
    func boundarySizesOverTCP(size: Int) async throws {
        try await EchoServer.run { server, _ in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(transport)
            let text = Self.text(size: size)
            let binary = Self.binary(size: size)
            #expect(text.bytes.count == size)
            try await transport.send(text)
            try await transport.send(binary)
            #expect(try await recorder.nextMessage(within: .seconds(60)) == text)
            #expect(try await recorder.nextMessage(within: .seconds(60)) == binary)
            await transport.close()
            let closure = try await recorder.closure()
            #expect(closure.isClean)
            #expect(closure.code == .normal)
        }
    }

    @Test("Messages come back intact over a Unix domain socket", arguments: [0, 126, 65_536, 1 << 20])
    func unixDomainSocket(size: Int) async throws {
        let path = FileManager.default.temporaryDirectory.path + "/ws-\(UUID().uuidString.prefix(8)).sock"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = EchoServer.configuration(address: .unixDomainSocket(path: path))
        try await EchoServer.run(configuration: configuration) { server, _ in
            #expect(server.port == nil)
            let transport = try await WebSocketClient.connect(to: .unixDomainSocket(path: path), path: "/rpc")
            let recorder = EventRecorder(transport)
            try await transport.send(Self.text(size: size))
            try await transport.send(Self.binary(size: size))
            #expect(try await recorder.nextMessage(within: .seconds(30)) == Self.text(size: size))
            #expect(try await recorder.nextMessage(within: .seconds(30)) == Self.binary(size: size))
            await transport.close()
        }
    }

    @Test("Messages enqueued from a task arrive in order")
    func orderingFromATask() async throws {
        try await EchoServer.run { server, _ in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(transport)
            let count = 2_000
            for index in 0 ..< count {
                try transport.enqueue(.text("message \(index)"))
            }
            let received = try await recorder.messages(count: count)
            #expect(received.map(\.text) == (0 ..< count).map { "message \($0)" })
            await transport.close()
        }
    }

    @Test("send waits for room in a small outbound buffer and every message still arrives")
    func backpressure() async throws {
        try await EchoServer.run { server, _ in
            var configuration = WebSocketClientConfiguration()
            configuration.outboundBufferLimit = 64 * 1024
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: configuration)
            let recorder = EventRecorder(transport)
            let message = Self.binary(size: 64 * 1024)
            for _ in 0 ..< 200 {
                try await transport.send(message)
            }
            let received = try await recorder.messages(count: 200, within: .seconds(60))
            #expect(received.allSatisfy { $0 == message })
            await transport.close()
        }
    }

    @Test("The inbound sequence yields messages and ends after a clean close")
    func inboundSequence() async throws {
        try await EchoServer.run { server, observations in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            try transport.enqueue(.text("one"))
            try transport.enqueue(.text("two"))
            let serverSide = try await observations.transport()
            let collected = try await withTimeLimit(.seconds(10), "reading the inbound sequence") {
                var texts: [String] = []
                for try await message in transport.inboundMessages() {
                    texts.append(message.text ?? "")
                    if texts.count == 2 {
                        await serverSide.close(code: .normal, reason: "done")
                    }
                }
                return texts
            }
            #expect(collected == ["one", "two"])
        }
    }

    @Test("State updates go from open through closing to closed")
    func stateUpdates() async throws {
        try await EchoServer.run { server, _ in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let updates = transport.stateUpdates()
            #expect(transport.state.isOpen)
            await transport.close(code: .normal, reason: "")
            let states = try await withTimeLimit(.seconds(10), "collecting state updates") {
                var names: [String] = []
                for await state in updates {
                    names.append(state.isClosed ? "closed" : state.description)
                }
                return names
            }
            #expect(states.first == "open" || states.first == "closing" || states.first == "closed")
            #expect(states.last == "closed")
            #expect(transport.state.isClosed)
            #expect(throws: TransportError.self) { try transport.enqueue(.text("late")) }
        }
    }

    @Test("withWebSocketConnection closes the connection normally when its body returns")
    func scopedConnection() async throws {
        try await EchoServer.run { server, observations in
            let reply = try await withWebSocketConnection(to: EchoServer.url(server)) { transport in
                let recorder = EventRecorder(transport)
                try await transport.send(.text("scoped"))
                return try await recorder.nextMessage().text
            }
            #expect(reply == "scoped")
            let closures = try await observations.closures(count: 1)
            #expect(closures.first?.code == .normal)
            #expect(closures.first?.isClean == true)
        }
    }

    @Test("after stopAccepting a new connection is refused while one already open still echoes, until shutdown")
    func stopAcceptingKeepsOpenConnections() async throws {
        try await EchoServer.run { server, _ in
            let open = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(open)
            await server.stopAccepting()
            await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: EchoServer.url(server))
            }
            try await open.send(.text("still here"))
            #expect(try await recorder.nextMessage().text == "still here")
            await open.close()
        }
    }
}

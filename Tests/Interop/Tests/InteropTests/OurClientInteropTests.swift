import RpcTesting
import RpcTransport
import RpcTransportNIO
import Testing

/// Our `WebSocketClient` against the echo server of the Python `websockets` package.
@Suite("Our WebSocket client against the Python websockets server", .timeLimit(.minutes(2)))
struct OurClientInteropTests {
    @Test(
        "Messages of 0 B, 125 B, 126 B, 64 KiB and 4 MiB come back from the Python server unchanged, with permessage-deflate negotiated exactly when both sides enable it",
        arguments: PayloadKind.allCases, [true, false]
    )
    func echoesEverySize(kind: PayloadKind, deflate: Bool) async throws {
        // Without deflate on our side the Python server still offers to accept it.
        try await PythonServer.run { server, port in
            let configuration = WebSocketClientConfiguration.interop(deflate: deflate ? .default : nil)
            try await withWebSocketConnection(to: "ws://127.0.0.1:\(port)/echo", configuration: configuration) {
                transport in
                #expect(transport.isCompressionEnabled == deflate)
                let recorder = TransportRecorder.start(transport)
                for (index, size) in MessagePattern.echoSizes.enumerated() {
                    let message = MessagePattern.message(kind, size: size)
                    try await transport.send(message)
                    let echo = try await recorder.message(number: index + 1)
                    let unchanged = echo.kind == message.kind && echo.bytes == message.bytes
                    #expect(unchanged, "the \(kind) message of \(size) bytes came back as \(echo.kind) of \(echo.bytes.count) bytes")
                }
            }
            let open = try await server.waitForEvent("the open event") { $0.event == "open" }
            #expect(open.extensions?.contains("permessage-deflate") == deflate, "\(open)")
            _ = try await server.waitForEvent("the closed event") { $0.event == "closed" }
            let received = server.events.filter { $0.event == "message" }
            #expect(received.map(\.length) == MessagePattern.echoSizes)
            #expect(received.allSatisfy { $0.kind == kind.rawValue })
        }
    }

    @Test("Our client offers permessage-deflate but goes on uncompressed when the Python server has it disabled")
    func deflateDeclinedByPeer() async throws {
        var options = PythonServerOptions()
        options.deflate = false
        try await PythonServer.run(options) { server, port in
            try await withWebSocketConnection(
                to: "ws://127.0.0.1:\(port)/", configuration: .interop(deflate: .default)
            ) { transport in
                #expect(!transport.isCompressionEnabled)
                let recorder = TransportRecorder.start(transport)
                let message = MessagePattern.message(.text, size: 4096)
                try await transport.send(message)
                let echo = try await recorder.message(number: 1)
            let unchanged = echo == message
            #expect(unchanged, "the echo of \(message.bytes.count) bytes came back as \(echo.bytes.count) bytes")
            }
            let open = try await server.waitForEvent("the open event") { $0.event == "open" }
            #expect(open.offeredExtensions?.contains("permessage-deflate") == true, "\(open)")
            #expect(open.extensions == "", "\(open)")
        }
    }

    @Test("Our client requests the URL's path and query, and offers no extension when permessage-deflate is disabled")
    func deflateNotOffered() async throws {
        try await PythonServer.run { server, port in
            try await withWebSocketConnection(
                to: "ws://127.0.0.1:\(port)/rpc/v1?room=7&user=a%20b", configuration: .interop()
            ) { transport in
                #expect(!transport.isCompressionEnabled)
            }
            let open = try await server.waitForEvent("the open event") { $0.event == "open" }
            #expect(open.path == "/rpc/v1?room=7&user=a%20b", "\(open)")
            #expect(open.offeredExtensions == "", "\(open)")
            #expect(open.extensions == "", "\(open)")
        }
    }

    @Test("A close code and reason our client sends reach the Python server, and the handshake ends cleanly")
    func closeFromOurClient() async throws {
        try await PythonServer.run { server, port in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/", configuration: .interop())
            await transport.close(code: CloseCode(4000), reason: "client done")
            let closure = await transport.waitUntilClosed()
            #expect(closure.code == CloseCode(4000))
            #expect(closure.initiatedLocally)
            #expect(closure.isClean, "\(closure)")
            let closed = try await server.waitForEvent("the closed event") { $0.event == "closed" }
            #expect(closed.code == 4000)
            #expect(closed.reason == "client done")
        }
    }

    @Test("A close code and reason the Python server sends reach our client's handler")
    func closeFromPythonServer() async throws {
        var options = PythonServerOptions()
        options.closeTrigger = "bye"
        options.closeCode = 4001
        options.closeReason = "server says bye"
        try await PythonServer.run(options) { server, port in
            try await withWebSocketConnection(to: "ws://127.0.0.1:\(port)/", configuration: .interop()) { transport in
                let recorder = TransportRecorder.start(transport)
                try await transport.send(.text("bye"))
                let closure = try await recorder.waitForClosure()
                #expect(closure.code == CloseCode(4001))
                #expect(closure.reason == "server says bye")
                #expect(!closure.initiatedLocally)
                #expect(closure.isClean, "\(closure)")
            }
            let closed = try await server.waitForEvent("the closed event") { $0.event == "closed" }
            #expect(closed.code == 4001)
        }
    }

    @Test(
        "A message from the Python server over our client's limit closes the connection with 1009, also when it arrives compressed",
        arguments: [false, true]
    )
    func oversizedMessageFromPythonServer(deflate: Bool) async throws {
        var options = PythonServerOptions()
        options.oversizeTrigger = "send-big"
        options.oversizeBytes = 4096
        try await PythonServer.run(options) { server, port in
            try await withWebSocketConnection(
                to: "ws://127.0.0.1:\(port)/",
                configuration: .interop(deflate: deflate ? .default : nil, maxMessageSize: 1024)
            ) { transport in
                #expect(transport.isCompressionEnabled == deflate)
                let recorder = TransportRecorder.start(transport)
                try await transport.send(.text("send-big"))
                let closure = try await recorder.waitForClosure()
                #expect(closure.code == .messageTooBig, "\(closure)")
                #expect(closure.error?.code == .messageTooLarge, "\(closure)")
                #expect(recorder.messages.isEmpty)
            }
            let closed = try await server.waitForEvent("the closed event") { $0.event == "closed" }
            #expect(closed.code == 1009, "\(closed)")
        }
    }

    @Test("The subprotocol the Python server picks from our client's offer is the one our transport reports")
    func subprotocolNegotiated() async throws {
        var options = PythonServerOptions()
        options.subprotocols = ["capnweb"]
        try await PythonServer.run(options) { server, port in
            try await withWebSocketConnection(
                to: "ws://127.0.0.1:\(port)/", configuration: .interop(subprotocols: ["capnweb.v2", "capnweb"])
            ) { transport in
                #expect(transport.subprotocol == "capnweb")
            }
            let open = try await server.waitForEvent("the open event") { $0.event == "open" }
            #expect(open.subprotocol == "capnweb")
        }
    }

    @Test("A Python server that requires a subprotocol our client does not offer refuses the upgrade with HTTP 400")
    func subprotocolRequiredByPeer() async throws {
        var options = PythonServerOptions()
        options.subprotocols = ["capnweb"]
        try await PythonServer.run(options) { _, port in
            let error = await connectionError(to: "ws://127.0.0.1:\(port)/", configuration: .interop())
            #expect(error?.code == .upgradeRejected, "\(String(describing: error))")
            #expect(error?.httpStatus == 400, "\(String(describing: error))")
        }
    }

    @Test("A close reason over 123 bytes from our client reaches the Python server cut on a character boundary")
    func longCloseReasonTruncated() async throws {
        try await PythonServer.run { server, port in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/", configuration: .interop())
            // 200 bytes of two-byte characters: 123 bytes would end inside one.
            await transport.close(code: CloseCode(4000), reason: String(repeating: "\u{e9}", count: 100))
            let closed = try await server.waitForEvent("the closed event") { $0.event == "closed" }
            #expect(closed.code == 4000, "\(closed)")
            #expect(closed.reason == String(repeating: "\u{e9}", count: 61), "\(closed)")
        }
    }

    @Test("Our client's keepalive pings are answered by the Python server, so the connection outlives the pong timeout")
    func keepaliveAnswered() async throws {
        var options = PythonServerOptions()
        options.reportPings = true
        try await PythonServer.run(options) { server, port in
            let interval = Duration.milliseconds(200)
            // Generous against a busy machine.
            let timeout = Duration.seconds(2)
            var configuration = WebSocketClientConfiguration.interop()
            configuration.keepalive = WebSocketKeepalive(interval: interval, timeout: timeout)
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/", configuration: configuration)
            let recorder = TransportRecorder.start(transport)
            // Each ping is scheduled one interval after the one before it went out, so ping n
            // leaves at least n - 1 intervals after the first, and the first ping's pong timer
            // falls due before ping timeout / interval + 2 does: the pings past that number go
            // out only because the server's pongs arrived and were accepted. The server reports
            // a ping once it has written its pong.
            let pingsOutlivingTimeout = Int(timeout / interval) + 5
            let pings = try await waitFor("\(pingsOutlivingTimeout) pings answered by the Python server", timeout: .seconds(60)) {
                () throws -> [PeerEvent]? in
                if let closure = recorder.closure {
                    throw ConnectionEnded(description: "the connection ended (\(closure)) while pinging\n\(server.transcript)")
                }
                let pings = server.events.filter { $0.event == "ping" }
                return pings.count >= pingsOutlivingTimeout ? pings : nil
            }
            // Our pings, each with its own payload (a counter).
            #expect(pings.allSatisfy { $0.length == 8 }, "\(pings)")
            #expect(Set(pings.compactMap(\.data)).count == pings.count, "\(pings)")
            #expect(transport.state.isOpen, "\(transport.state)")
            #expect(recorder.closure == nil, "\(String(describing: recorder.closure))")
            await transport.close()
            let closure = try await recorder.waitForClosure()
            #expect(closure.code == .normal)
            #expect(closure.isClean, "\(closure)")
        }
    }

    @Test(
        "Compressed messages survive every window size and context-takeover setting our client asks the Python server for",
        arguments: DeflateSettings.clientOffers
    )
    func deflateParameters(settings: DeflateSettings) async throws {
        try await PythonServer.run { server, port in
            try await withWebSocketConnection(
                to: "ws://127.0.0.1:\(port)/", configuration: .interop(deflate: settings.configuration)
            ) { transport in
                #expect(transport.isCompressionEnabled)
                let recorder = TransportRecorder.start(transport)
                for (index, message) in DeflateSettings.messages.enumerated() {
                    try await transport.send(message)
                    let echo = try await recorder.message(number: index + 1)
                    let unchanged = echo == message
                    #expect(unchanged, "message \(index + 1) of \(message.bytes.count) bytes came back changed")
                }
            }
            let open = try await server.waitForEvent("the open event") { $0.event == "open" }
            #expect(open.extensions?.contains("permessage-deflate") == true, "\(open)")
        }
    }

    @Test(
        "Fragmented messages from the Python server are reassembled by our client, compressed or not",
        arguments: [false, true]
    )
    func fragmentedFromPythonServer(deflate: Bool) async throws {
        var options = PythonServerOptions()
        options.fragmentSize = 1000
        try await PythonServer.run(options) { _, port in
            try await withWebSocketConnection(
                to: "ws://127.0.0.1:\(port)/", configuration: .interop(deflate: deflate ? .default : nil)
            ) { transport in
                #expect(transport.isCompressionEnabled == deflate)
                let recorder = TransportRecorder.start(transport)
                let messages = [
                    MessagePattern.message(.text, size: 70_000),
                    MessagePattern.message(.binary, size: 300_000),
                    MessagePattern.message(.text, size: 1001),
                ]
                for (index, message) in messages.enumerated() {
                    try await transport.send(message)
                    let echo = try await recorder.message(number: index + 1)
                    let unchanged = echo == message
                    #expect(unchanged, "the \(message.kind) message of \(message.bytes.count) bytes came back as \(echo.bytes.count) bytes")
                }
            }
        }
    }
}

import NIOHTTP1
import RpcTransport
import RpcTransportNIO
import Testing
import RpcTesting

@Suite("WebSocket protocol behaviour")
struct WebSocketProtocolTests {
    // MARK: Fragmentation and control frames

    @Test("Fragmented messages with pings between the fragments arrive whole and the pings are answered")
    func fragmentedMessagesWithPings() async throws {
        let script = [
            TestFrame(fin: false, reserved: 0, opcode: 0x1, payload: Array("Hel".utf8)),
            TestFrame(fin: true, reserved: 0, opcode: 0x9, payload: Array("p1".utf8)),
            TestFrame(fin: false, reserved: 0, opcode: 0x0, payload: Array("lo, ".utf8)),
            TestFrame(fin: true, reserved: 0, opcode: 0x9, payload: Array("p2".utf8)),
            TestFrame(fin: true, reserved: 0, opcode: 0x0, payload: Array("wörld".utf8)),
            TestFrame(fin: false, reserved: 0, opcode: 0x2, payload: [1, 2]),
            TestFrame(fin: true, reserved: 0, opcode: 0xA, payload: []),
            TestFrame(fin: true, reserved: 0, opcode: 0x0, payload: [3]),
        ]
        try await ScriptedWebSocketServer.run(script: script) { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            let recorder = EventRecorder(transport)
            #expect(try await recorder.nextMessage() == .text("Hello, wörld"))
            #expect(try await recorder.nextMessage() == .binary([1, 2, 3]))
            try await waitUntil("two pongs") { server.received.filter { $0.opcode == 0xA }.count == 2 }
            let pongs = server.received.filter { $0.opcode == 0xA }.map(\.payload)
            #expect(pongs == [Array("p1".utf8), Array("p2".utf8)])
            await transport.close()
        }
    }

    @Test("A new message before the fragmented one ends fails the connection with 1002")
    func interleavedDataFrames() async throws {
        let script = [
            TestFrame(fin: false, reserved: 0, opcode: 0x1, payload: Array("a".utf8)),
            TestFrame(fin: true, reserved: 0, opcode: 0x1, payload: Array("b".utf8)),
        ]
        try await ScriptedWebSocketServer.run(script: script) { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            let closure = try await EventRecorder(transport).closure()
            #expect(closure.code == .protocolError)
            #expect(closure.error?.code == .protocolViolation)
            try await waitUntil("the client's close frame") { server.received.contains { $0.opcode == 0x8 } }
            #expect(server.received.first { $0.opcode == 0x8 }?.closeCode == 1002)
        }
    }

    @Test("A masked frame from the server fails the connection with 1002")
    func maskedServerFrame() async throws {
        let script = [TestFrame(fin: true, reserved: 0, opcode: 0x1, payload: Array("x".utf8))]
        try await ScriptedWebSocketServer.run(script: script, maskFrames: true) { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            let recorder = EventRecorder(transport)
            let closure = try await recorder.closure()
            #expect(closure.code == .protocolError)
            #expect(recorder.messages.isEmpty)
        }
    }

    @Test("A frame with RSV2 set from the server fails the connection with 1002")
    func reservedBitFromServer() async throws {
        let script = [TestFrame(fin: true, reserved: 0x20, opcode: 0x1, payload: Array("x".utf8))]
        try await ScriptedWebSocketServer.run(script: script) { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            let closure = try await EventRecorder(transport).closure()
            #expect(closure.code == .protocolError)
        }
    }

    @Test("Invalid UTF-8 in a text message from the server fails the connection with 1007")
    func invalidUTF8FromServer() async throws {
        let script = [TestFrame(fin: true, reserved: 0, opcode: 0x1, payload: [0x61, 0xC3, 0x28])]
        try await ScriptedWebSocketServer.run(script: script) { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            let closure = try await EventRecorder(transport).closure()
            #expect(closure.code == .invalidPayload)
            #expect(closure.error?.code == .invalidUTF8)
        }
    }

    // MARK: Keepalive

    @Test("Keepalive pings are answered by the server and the connection outlives the pong timeout")
    func keepaliveAnswered() async throws {
        let interval = Duration.milliseconds(50)
        let timeout = Duration.milliseconds(1500)
        // Ping n goes out no earlier than n intervals after the first (each is scheduled when
        // the one before it went out), so a ping past this number is only ever sent when the
        // first ping's pong arrived: without one, the pong timer (due first) ends the connection.
        let pingsOutlivingTimeout = Int(timeout / interval) + 10
        try await ScriptedWebSocketServer.run(answerPings: true) { server in
            var configuration = WebSocketClientConfiguration()
            configuration.keepalive = WebSocketKeepalive(interval: interval, timeout: timeout)
            let transport = try await WebSocketClient.connect(
                to: "ws://127.0.0.1:\(server.port)/", configuration: configuration)
            let recorder = EventRecorder(transport)
            let pings = try await waitFor("\(pingsOutlivingTimeout) pings", timeout: .seconds(30)) { () throws -> [TestFrame]? in
                if let closure = recorder.closure { throw closure.asError }
                let pings = server.received.filter { $0.opcode == 0x9 }
                return pings.count >= pingsOutlivingTimeout ? pings : nil
            }
            // The server saw distinct pings (their payloads count up), and answered every one.
            #expect(Set(pings.map(\.payload)).count == pings.count)
            #expect(transport.state.isOpen, "\(transport.state)")
            #expect(recorder.closure == nil, "\(String(describing: recorder.closure))")
            await transport.close()
            let closure = try await recorder.closure()
            #expect(closure.code == .normal)
        }
    }

    @Test("A peer that stops answering pings fails the connection with keepaliveTimeout")
    func keepaliveTimeout() async throws {
        try await ScriptedWebSocketServer.run(answerPings: false) { server in
            var configuration = WebSocketClientConfiguration()
            configuration.keepalive = WebSocketKeepalive(interval: .milliseconds(100), timeout: .milliseconds(200))
            let transport = try await WebSocketClient.connect(
                to: "ws://127.0.0.1:\(server.port)/", configuration: configuration)
            let closure = try await EventRecorder(transport).closure(within: .seconds(5))
            #expect(closure.error?.code == .keepaliveTimeout)
            #expect(server.received.contains { $0.opcode == 0x9 })
        }
    }

    // MARK: Closing

    @Test("A client's close code and reason reach the server and both sides end cleanly")
    func clientCloseCode() async throws {
        try await EchoServer.run { server, observations in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(transport)
            await transport.close(code: CloseCode(4001), reason: "bye")
            let local = try await recorder.closure()
            #expect(local.code == CloseCode(4001))
            #expect(local.initiatedLocally)
            #expect(local.isClean)
            let remote = try await observations.closures(count: 1)[0]
            #expect(remote.code == CloseCode(4001))
            #expect(remote.reason == "bye")
            #expect(!remote.initiatedLocally)
        }
    }

    @Test("A server's close code and reason reach the client")
    func serverCloseCode() async throws {
        try await EchoServer.run { server, observations in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(transport)
            let serverSide = try await observations.transport()
            await serverSide.close(code: CloseCode(4002), reason: "server bye")
            let closure = try await recorder.closure()
            #expect(closure.code == CloseCode(4002))
            #expect(closure.reason == "server bye")
            #expect(!closure.initiatedLocally)
            #expect(closure.isClean)
            #expect(closure.asError.closeCode == CloseCode(4002))
        }
    }

    @Test("A long close reason is cut to 123 bytes without splitting a character")
    func longCloseReason() async throws {
        try await EchoServer.run { server, observations in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            await transport.close(code: .normal, reason: String(repeating: "é", count: 100))
            let remote = try await observations.closures(count: 1)[0]
            #expect(remote.reason == String(repeating: "é", count: 61))
            #expect(remote.reason.utf8.count <= 123)
        }
    }

    // MARK: Limits

    @Test("A message above the server's message limit closes the connection with 1009")
    func messageLimit() async throws {
        var configuration = EchoServer.configuration()
        configuration.maxMessageSize = 1024
        try await EchoServer.run(configuration: configuration) { server, observations in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(transport)
            try await transport.send(.binary(Array(repeating: 1, count: 2000)))
            let closure = try await recorder.closure()
            #expect(closure.code == .messageTooBig)
            let remote = try await observations.closures(count: 1)[0]
            #expect(remote.error?.code == .messageTooLarge)
            #expect(remote.code == .messageTooBig)
        }
    }

    @Test("A 20 MB message sent as one frame each way passes the default limits")
    func largeSingleFrame() async throws {
        var configuration = EchoServer.configuration()
        configuration.maxOutboundFrameSize = 32 * 1024 * 1024
        try await EchoServer.run(configuration: configuration) { server, _ in
            var client = WebSocketClientConfiguration()
            client.maxOutboundFrameSize = 32 * 1024 * 1024
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: client)
            let recorder = EventRecorder(transport)
            let payload = [UInt8](repeating: 7, count: 20_000_000)
            try await transport.send(.binary(payload))
            #expect(try await recorder.nextMessage() == .binary(payload))
            await transport.close()
        }
    }

    @Test("A frame above the server's frame limit closes the connection with 1009")
    func frameLimit() async throws {
        var configuration = EchoServer.configuration()
        configuration.maxFrameSize = 1024
        try await EchoServer.run(configuration: configuration) { server, observations in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(transport)
            try await transport.send(.binary(Array(repeating: 1, count: 4096)))
            #expect(try await recorder.closure().code == .messageTooBig)
            #expect(try await observations.closures(count: 1)[0].error?.code == .messageTooLarge)
        }
    }

    @Test("Fragments adding up to more than the message limit close the connection with 1009")
    func fragmentedMessageLimit() async throws {
        var configuration = EchoServer.configuration()
        configuration.maxMessageSize = 1024
        configuration.maxFrameSize = 1024
        try await EchoServer.run(configuration: configuration) { server, _ in
            var client = WebSocketClientConfiguration()
            client.maxOutboundFrameSize = 512
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: client)
            let recorder = EventRecorder(transport)
            try await transport.send(.text("ok"))
            #expect(try await recorder.nextMessage() == .text("ok"))
            try await transport.send(.binary(Array(repeating: 2, count: 4096)))
            #expect(try await recorder.closure().code == .messageTooBig)
        }
    }

    @Test("Enqueueing a message above the client's own limit throws messageTooLarge")
    func localMessageLimit() async throws {
        try await EchoServer.run { server, _ in
            var configuration = WebSocketClientConfiguration()
            configuration.maxMessageSize = 100
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: configuration)
            let error = #expect(throws: TransportError.self) {
                try transport.enqueue(.binary(Array(repeating: 0, count: 101)))
            }
            #expect(error?.code == .messageTooLarge)
            #expect(transport.state.isOpen)
            await transport.close()
        }
    }

    // MARK: Compression

    @Test("permessage-deflate is agreed when both sides enable it and messages round-trip")
    func deflateAgreed() async throws {
        var configuration = EchoServer.configuration()
        configuration.deflate = .default
        try await EchoServer.run(configuration: configuration) { server, observations in
            var client = WebSocketClientConfiguration()
            client.deflate = .default
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: client)
            let recorder = EventRecorder(transport)
            #expect(transport.isCompressionEnabled)
            #expect(try await observations.transport().isCompressionEnabled)
            let large = TransportMessage.text(String(repeating: "compressible text ", count: 20_000))
            let small = TransportMessage.text("hi")
            let random = TransportMessage.binary((0 ..< 5000).map { _ in UInt8.random(in: 0 ... 255) })
            for message in [large, small, random, large] {
                try await transport.send(message)
            }
            #expect(try await recorder.messages(count: 4) == [large, small, random, large])
            await transport.close()
        }
    }

    @Test("permessage-deflate without context takeover and with small windows round-trips")
    func deflateWithoutContextTakeover() async throws {
        var configuration = EchoServer.configuration()
        configuration.deflate = PerMessageDeflateConfiguration(serverNoContextTakeover: true, serverMaxWindowBits: 10)
        try await EchoServer.run(configuration: configuration) { server, _ in
            var client = WebSocketClientConfiguration()
            client.deflate = PerMessageDeflateConfiguration(clientNoContextTakeover: true, clientMaxWindowBits: 9)
            client.maxOutboundFrameSize = 1000
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: client)
            let recorder = EventRecorder(transport)
            #expect(transport.isCompressionEnabled)
            let message = TransportMessage.text(String(repeating: "abcdefgh", count: 10_000))
            try await transport.send(message)
            try await transport.send(message)
            #expect(try await recorder.messages(count: 2) == [message, message])
            await transport.close()
        }
    }

    @Test("Without deflate on one side the connection runs uncompressed", arguments: [true, false])
    func deflateOnOneSide(clientOffers: Bool) async throws {
        var configuration = EchoServer.configuration()
        configuration.deflate = clientOffers ? nil : .default
        try await EchoServer.run(configuration: configuration) { server, _ in
            var client = WebSocketClientConfiguration()
            client.deflate = clientOffers ? .default : nil
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: client)
            let recorder = EventRecorder(transport)
            #expect(!transport.isCompressionEnabled)
            let message = TransportMessage.text(String(repeating: "x", count: 4096))
            try await transport.send(message)
            #expect(try await recorder.nextMessage() == message)
            await transport.close()
        }
    }

    @Test("A compressed frame without an agreed extension fails the connection with 1002")
    func rsv1WithoutDeflate() async throws {
        let script = [TestFrame(fin: true, reserved: 0x40, opcode: 0x1, payload: [0x4A, 0x04, 0x00])]
        try await ScriptedWebSocketServer.run(script: script) { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            #expect(try await EventRecorder(transport).closure().code == .protocolError)
        }
    }

    // MARK: Handshake

    @Test("The upgrade hook picks the subprotocol from the client's offer")
    func subprotocolSelection() async throws {
        var configuration = EchoServer.configuration()
        configuration.upgradeHook = { request in
            .accept(subprotocol: request.offeredSubprotocols.first { $0 == "capnweb" })
        }
        try await EchoServer.run(configuration: configuration) { server, observations in
            var client = WebSocketClientConfiguration()
            client.subprotocols = ["json", "capnweb"]
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server, path: "/rpc?x=1"), configuration: client)
            #expect(transport.subprotocol == "capnweb")
            let serverSide = try await observations.transport()
            #expect(serverSide.subprotocol == "capnweb")
            let request = try #require(observations.upgrades.first)
            #expect(request.offeredSubprotocols == ["json", "capnweb"])
            #expect(request.path == "/rpc")
            #expect(request.query == "x=1")
            #expect(request.remoteAddress != nil)
            await transport.close()
        }
    }

    @Test("The upgrade hook refuses a client without credentials with 403 before the upgrade")
    func upgradeHookRefusal() async throws {
        var configuration = EchoServer.configuration()
        configuration.upgradeHook = { request in
            request.headers.first(name: "authorization") == "Bearer good" ? .accept() : .reject(status: 403)
        }
        try await EchoServer.run(configuration: configuration) { server, observations in
            let error = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: EchoServer.url(server))
            }
            #expect(error?.code == .upgradeRejected)
            #expect(error?.httpStatus == 403)
            #expect(observations.transports.isEmpty)
            var client = WebSocketClientConfiguration()
            client.headers = HTTPHeaders([("authorization", "Bearer good")])
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: client)
            #expect(transport.state.isOpen)
            await transport.close()
        }
    }

    @Test("A subprotocol the client did not offer fails the handshake")
    func unofferedSubprotocol() async throws {
        try await ScriptedWebSocketServer.run(responseHeaders: [("Sec-WebSocket-Protocol", "other")]) { server in
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = ["capnweb"]
            let error = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: configuration)
            }
            #expect(error?.code == .handshakeFailed)
        }
    }

    @Test("An extension the client did not offer fails the handshake")
    func unofferedExtension() async throws {
        try await ScriptedWebSocketServer.run(responseHeaders: [("Sec-WebSocket-Extensions", "permessage-deflate")]) {
            server in
            let error = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            }
            #expect(error?.code == .handshakeFailed)
        }
    }

    @Test("A server without a connection handler answers upgrades with 404")
    func noConnectionHandler() async throws {
        try await withTransportServer(
            configuration: EchoServer.configuration(),
            onBatch: { $0.messages }
        ) { server in
            let error = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: EchoServer.url(server))
            }
            #expect(error?.code == .upgradeRejected)
            #expect(error?.httpStatus == 404)
        }
    }

    @Test("A server that never answers the handshake fails the connect with handshakeTimeout")
    func handshakeTimeout() async throws {
        try await SilentTCPServer.run { server in
            var configuration = WebSocketClientConfiguration()
            configuration.handshakeTimeout = .milliseconds(300)
            let error = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: configuration)
            }
            #expect(error?.code == .handshakeTimeout)
        }
    }

    @Test("A refused connection fails with connectFailed")
    func connectionRefused() async throws {
        let server = try await SilentTCPServer.start()
        let port = server.port
        await server.stop()
        let error = await #expect(throws: TransportError.self) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
        }
        #expect(error?.code == .connectFailed)
    }

    @Test(
        "URLs without a usable scheme, host or port are invalid targets",
        arguments: ["http://127.0.0.1/", "ws://", "ws://:80/", "ws://host:0/", "ws://host:70000/", "127.0.0.1:80", "ws://[::1/"]
    )
    func invalidURLs(url: String) async throws {
        let error = await #expect(throws: TransportError.self) {
            _ = try await WebSocketClient.connect(to: url)
        }
        #expect(error?.code == .invalidTarget)
    }

    // MARK: Shutdown

    @Test("A graceful shutdown closes open WebSockets with 1001")
    func shutdownClosesWithGoingAway() async throws {
        let recorder = try await EchoServer.run { server, observations in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(transport)
            _ = try await observations.transport()
            return recorder
        }
        let closure = try await recorder.closure()
        #expect(closure.code == .goingAway)
        #expect(!closure.initiatedLocally)
    }
}

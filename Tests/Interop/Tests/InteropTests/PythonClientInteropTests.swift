import RpcTransport
import RpcTransportNIO
import Testing

/// The client of the Python `websockets` package against our `TransportServer`.
@Suite("The Python websockets client against our TransportServer", .timeLimit(.minutes(2)))
struct PythonClientInteropTests {
    @Test(
        "Messages of 0 B, 125 B, 126 B, 64 KiB and 4 MiB from the Python client reach our server intact and come back unchanged, with permessage-deflate agreed exactly when our server enables it",
        arguments: PayloadKind.allCases, [true, false]
    )
    func echoesEverySize(kind: PayloadKind, deflate: Bool) async throws {
        // The Python client always offers permessage-deflate here.
        try await OurServer.run(OurServer.configuration(deflate: deflate ? .default : nil)) { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/echo")
            options.messages = MessagePattern.echoSizes.map { MessagePattern.spec(kind, size: $0) }
            let run = try await PythonClient.run(options)
            #expect(run.errors.isEmpty, "\(run.transcript)")
            #expect(run.open?.extensions?.contains("permessage-deflate") == deflate, "\(run.transcript)")
            #expect(run.messages.map(\.length) == MessagePattern.echoSizes, "\(run.transcript)")
            #expect(run.messages.allSatisfy { $0.matchesSent == true && $0.kind == kind.rawValue }, "\(run.transcript)")
            #expect(run.closed?.code == 1000, "\(run.transcript)")

            let connection = try await record.firstClosedConnection()
            #expect(connection.transport.isCompressionEnabled == deflate)
            #expect(connection.request.path == "/echo")
            #expect(connection.messages.count == MessagePattern.echoSizes.count)
            for (message, size) in zip(connection.messages, MessagePattern.echoSizes) {
                let intact = message == MessagePattern.message(kind, size: size)
                #expect(intact, "the \(kind) message of \(size) bytes arrived as \(message.kind) of \(message.bytes.count) bytes")
            }
            #expect(connection.closure?.code == .normal)
            #expect(connection.closure?.isClean == true)
        }
    }

    @Test("Our server with permessage-deflate enabled goes on uncompressed with a Python client that does not offer it")
    func deflateNotOfferedByPeer() async throws {
        try await OurServer.run(OurServer.configuration(deflate: .default)) { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/")
            options.deflate = false
            options.messages = [MessagePattern.spec(.text, size: 4096)]
            let run = try await PythonClient.run(options)
            #expect(run.messages.first?.matchesSent == true, "\(run.transcript)")
            #expect(run.open?.extensions == "", "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(!connection.transport.isCompressionEnabled)
        }
    }

    @Test("A close code the Python client sends reaches our server's handler, and the handshake ends cleanly")
    func closeFromPythonClient() async throws {
        try await OurServer.run { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/")
            options.messages = ["literal:hello"]
            options.closeCode = 4003
            options.closeReason = "python done"
            let run = try await PythonClient.run(options)
            #expect(run.messages.first?.text == "hello", "\(run.transcript)")
            #expect(run.closed?.code == 4003, "\(run.transcript)")
            let closure = try #require(try await record.firstClosedConnection().closure)
            #expect(closure.code == CloseCode(4003))
            #expect(closure.reason == "python done")
            #expect(!closure.initiatedLocally)
            #expect(closure.isClean, "\(closure)")
        }
    }

    @Test("A close code and reason our server sends reach the Python client")
    func closeFromOurServer() async throws {
        try await OurServer.run { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/")
            options.messages = ["literal:\(OurServer.closeTrigger)"]
            options.expectClose = true
            let run = try await PythonClient.run(options)
            #expect(run.closed?.code == Int(OurServer.closeCode.rawValue), "\(run.transcript)")
            #expect(run.closed?.reason == OurServer.closeReason, "\(run.transcript)")
            let closure = try #require(try await record.firstClosedConnection().closure)
            #expect(closure.code == OurServer.closeCode)
            #expect(closure.initiatedLocally)
            #expect(closure.isClean, "\(closure)")
        }
    }

    @Test(
        "A message from the Python client over our server's limit closes the connection with 1009, also when it arrives compressed",
        arguments: [false, true]
    )
    func oversizedMessageFromPythonClient(deflate: Bool) async throws {
        let configuration = OurServer.configuration(deflate: deflate ? .default : nil, maxMessageSize: 65_536)
        try await OurServer.run(configuration) { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/")
            options.messages = [MessagePattern.spec(.text, size: 65_537)]
            options.expectClose = true
            let run = try await PythonClient.run(options)
            #expect(run.messages.isEmpty, "\(run.transcript)")
            #expect(run.closed?.code == 1009, "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(connection.transport.isCompressionEnabled == deflate)
            #expect(connection.messages.isEmpty)
            #expect(connection.closure?.code == .messageTooBig, "\(String(describing: connection.closure))")
            #expect(connection.closure?.error?.code == .messageTooLarge, "\(String(describing: connection.closure))")
        }
    }

    @Test("The subprotocol our server accepts from the Python client's offer is agreed on both sides, and the request path and query reach the handler")
    func subprotocolNegotiated() async throws {
        try await OurServer.run { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/rpc/v1?room=7")
            options.subprotocols = ["capnweb.v2", OurServer.subprotocol]
            options.messages = ["literal:hi"]
            let run = try await PythonClient.run(options)
            #expect(run.open?.subprotocol == OurServer.subprotocol, "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(connection.transport.subprotocol == OurServer.subprotocol)
            #expect(connection.request.offeredSubprotocols == ["capnweb.v2", OurServer.subprotocol])
            #expect(connection.request.path == "/rpc/v1")
            #expect(connection.request.query == "room=7")
        }
    }

    @Test("Our server answers the Python client's keepalive pings, so the client never times out")
    func pingsAnswered() async throws {
        try await OurServer.run { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/")
            options.messages = ["literal:hello"]
            // Generous against a busy machine, yet a missing pong closes the connection (1011)
            // well before the client is done lingering.
            options.pingInterval = 0.2
            options.pingTimeout = 2
            options.linger = 3
            let run = try await PythonClient.run(options)
            #expect(run.errors.isEmpty, "\(run.transcript)")
            #expect(run.closed?.code == 1000, "\(run.transcript)")
            // The client pinged, and our server answered: several pongs came back, each
            // echoing the payload of a distinct ping.
            #expect(run.pongs.count >= 3, "\(run.transcript)")
            #expect(Set(run.pongs.compactMap(\.data)).count == run.pongs.count, "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(connection.closure?.code == .normal)
            #expect(connection.closure?.isClean == true, "\(String(describing: connection.closure))")
        }
    }

    @Test(
        "Compressed messages from the Python client survive every window size and context-takeover setting our server imposes",
        arguments: DeflateSettings.serverRequirements
    )
    func deflateParameters(settings: DeflateSettings) async throws {
        try await OurServer.run(OurServer.configuration(deflate: settings.configuration)) { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/")
            options.messages = DeflateSettings.messageSpecs
            let run = try await PythonClient.run(options)
            #expect(run.errors.isEmpty, "\(run.transcript)")
            #expect(run.open?.extensions?.contains("permessage-deflate") == true, "\(run.transcript)")
            #expect(run.messages.count == DeflateSettings.messageSpecs.count, "\(run.transcript)")
            #expect(run.messages.allSatisfy { $0.matchesSent == true }, "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(connection.transport.isCompressionEnabled)
            let intact = connection.messages == DeflateSettings.messages
            #expect(intact, "our server received \(connection.messages.map(\.bytes.count)) bytes")
        }
    }

    @Test(
        "Fragmented messages from the Python client are reassembled by our server, compressed or not",
        arguments: [false, true]
    )
    func fragmentedFromPythonClient(deflate: Bool) async throws {
        try await OurServer.run(OurServer.configuration(deflate: deflate ? .default : nil)) { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/")
            options.fragmentSize = 1000
            options.messages = ["text:70000", "binary:300000", "text:1001"]
            let run = try await PythonClient.run(options)
            #expect(run.errors.isEmpty, "\(run.transcript)")
            #expect(run.messages.map(\.length) == [70_000, 300_000, 1001], "\(run.transcript)")
            #expect(run.messages.allSatisfy { $0.matchesSent == true }, "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(connection.transport.isCompressionEnabled == deflate)
            let expected = [
                MessagePattern.message(.text, size: 70_000),
                MessagePattern.message(.binary, size: 300_000),
                MessagePattern.message(.text, size: 1001),
            ]
            let intact = connection.messages == expected
            #expect(intact, "our server received \(connection.messages.map(\.bytes.count)) bytes")
        }
    }
}

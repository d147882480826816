import RpcTesting
import RpcTransport
import RpcTransportNIO
import Testing

/// The request read timeout runs from a request's first byte to the end of its body, for routed
/// requests and batches alike, however slowly the bytes trickle in.
@Suite("HTTP request read timeout")
struct RequestReadTimeoutTests {
    /// The timeout the servers here are given.
    private static let timeout = Duration.milliseconds(400)
    /// How long a test waits for the 408 and the close: far below how long the drip would last.
    private static let bound = Duration.seconds(6)

    private static func configuration() -> TransportServerConfiguration {
        var configuration = EchoServer.configuration()
        configuration.requestReadTimeout = timeout
        // Long enough that only the request read timeout can end a dripping request here.
        configuration.idleTimeout = .seconds(120)
        return configuration
    }

    /// Runs `body` with a server that routes every request to a handler answering 200.
    private static func withRoutingServer(_ body: (Int, Recorder<String>) async throws -> Void) async throws {
        let handled = Recorder<String>()
        try await withTransportServer(
            configuration: configuration(),
            onConnection: { transport, _ in _ = await transport.waitUntilClosed() },
            onRequest: { request in
                handled.append(request.path)
                return HTTPServerResponse(status: 200, text: "ok")
            }
        ) { server in
            try await body(server.port ?? 0, handled)
        }
    }

    /// Writes `bytes` one at a time, 100 ms apart, until they are all out or the connection ends.
    private static func drip(_ bytes: [UInt8], to raw: RawTCPClient) -> Task<Void, Never> {
        Task {
            for byte in bytes {
                guard raw.isOpen, !Task.isCancelled else { return }
                try? await raw.write([byte])
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// A chunked body of one 300-byte chunk: dripped, it would take 30 s.
    private static let chunkedBody = Array("12c\r\n".utf8) + Array(repeating: UInt8(ascii: "a"), count: 300) + Array("\r\n0\r\n\r\n".utf8)

    /// Waits for a 408 and the close, with the drip still going.
    private static func expectTimedOut(_ raw: RawTCPClient, drip: Task<Void, Never>) async throws {
        defer { drip.cancel() }
        let head = try await raw.responseHead(within: bound)
        #expect(head.hasPrefix("HTTP/1.1 408"), "\(head)")
        try await raw.waitUntilClosed(within: bound)
    }

    @Test("a routed request whose chunked body drips a byte every 100 ms is answered 408 at the timeout and closed")
    func drippingChunkedBodyOfRoutedRequest() async throws {
        try await Self.withRoutingServer { port, handled in
            let raw = try await RawTCPClient.connect(port: port)
            try await raw.write("POST /api HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            try await Self.expectTimedOut(raw, drip: Self.drip(Self.chunkedBody, to: raw))
            #expect(handled.all.isEmpty)
        }
    }

    @Test("a batch whose chunked body drips a byte every 100 ms is answered 408 at the timeout and closed")
    func drippingChunkedBodyOfBatch() async throws {
        try await EchoServer.run(configuration: Self.configuration()) { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            try await Self.expectTimedOut(raw, drip: Self.drip(Self.chunkedBody, to: raw))
            #expect(observations.batches.isEmpty)
        }
    }

    @Test("a request head that drips a byte every 100 ms is cut at the timeout, however long the idle timeout")
    func drippingHead() async throws {
        try await Self.withRoutingServer { port, handled in
            let raw = try await RawTCPClient.connect(port: port)
            let head = "GET /api HTTP/1.1\r\nHost: localhost\r\nX-Padding: " + String(repeating: "p", count: 300) + "\r\n\r\n"
            let drip = Self.drip(Array(head.utf8), to: raw)
            defer { drip.cancel() }
            try await raw.waitUntilClosed(within: Self.bound)
            #expect(handled.all.isEmpty)
        }
    }

    @Test("a WebSocket upgrade request whose body drips is cut at the timeout")
    func drippingUpgradeBody() async throws {
        try await EchoServer.run(configuration: Self.configuration()) { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            var request = "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            request += "Transfer-Encoding: chunked\r\n\r\n"
            try await raw.write(request)
            let drip = Self.drip(Self.chunkedBody, to: raw)
            defer { drip.cancel() }
            try await raw.waitUntilClosed(within: Self.bound)
            #expect(observations.transports.isEmpty)
        }
    }

    @Test("the dripping head of a second request on a kept-alive connection is cut at its own timeout")
    func drippingSecondRequest() async throws {
        try await Self.withRoutingServer { port, handled in
            let raw = try await RawTCPClient.connect(port: port)
            try await raw.write("GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let first = try await raw.responseHead(within: Self.bound)
            #expect(first.hasPrefix("HTTP/1.1 200"))
            let answered = raw.received.count
            let second = Array("GET /second HTTP/1.1\r\nHost: localhost\r\nX-Padding: ".utf8) + Array(repeating: UInt8(ascii: "p"), count: 300)
            let drip = Self.drip(second, to: raw)
            defer { drip.cancel() }
            try await raw.waitUntilClosed(within: Self.bound)
            #expect(raw.received.count == answered, "nothing more is answered")
            #expect(handled.all == ["/first"])
        }
    }

    @Test("a body that drips after the server already refused its request is cut at the timeout")
    func drippingBodyAfterEarlyAnswer() async throws {
        try await EchoServer.run(configuration: Self.configuration()) { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            // A batch endpoint answers a PUT at once with 405; the body goes on dripping.
            try await raw.write("PUT /rpc HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            let drip = Self.drip(Self.chunkedBody, to: raw)
            defer { drip.cancel() }
            let head = try await raw.responseHead(within: Self.bound)
            #expect(head.hasPrefix("HTTP/1.1 405"), "\(head)")
            try await raw.waitUntilClosed(within: Self.bound)
        }
    }
}

/// A server shutting down while a client is half way through a request head.
@Suite("HTTP shutdown with a request half read")
struct ShutdownWithPartialRequestTests {
    @Test("a server shut down while a request head is half read closes that connection without answering it")
    func shutdownWithPartialHead() async throws {
        let raw = try await EchoServer.run { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n")
            // The first request is answered: the connection is read, and the half head that
            // follows reaches the server's decoder before the shutdown.
            #expect(try await raw.responseHead().hasPrefix("HTTP/1.1 405"))
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: loc")
            // Time for those bytes to be read before the shutdown; nothing is asserted on it.
            try await Task.sleep(for: .milliseconds(100))
            return raw
        }
        try await raw.waitUntilClosed()
    }
}

import RpcTransport
import RpcTransportNIO
import RpcTransportTesting
import Testing

/// TLS between our transport and the Python `websockets` package (with Python's `ssl` module),
/// with the certificates of the shared test fixture, made once per run by the `openssl` command line.
@Suite("TLS between our transport and the Python websockets package", .timeLimit(.minutes(2)))
struct TLSInteropTests {
    let certificates: CertificateFixture

    init() async throws {
        certificates = try await CertificateFixture.shared()
    }

    private func serverOptions(_ identity: CertificateFixture.Identity = .server) -> PythonServerOptions {
        var options = PythonServerOptions()
        options.certificate = (certificates.certificatePath(identity), certificates.keyPath(identity))
        return options
    }

    /// Connects over TLS, checks one echo and a clean close.
    private func expectEcho(url: String, tls: TLSClientConfiguration) async throws {
        let recorder = try await withWebSocketConnection(to: url, configuration: .interop(tls: tls)) { transport in
            let recorder = TransportRecorder.start(transport)
            let message = MessagePattern.message(.text, size: 70_000)
            try await transport.send(message)
            let echo = try await recorder.message(number: 1)
            let unchanged = echo == message
            #expect(unchanged, "the echo of \(message.bytes.count) bytes came back as \(echo.bytes.count) bytes")
            return recorder
        }
        let closure = try await recorder.waitForClosure()
        #expect(closure.code == .normal, "\(closure)")
        #expect(closure.isClean, "\(closure)")
    }

    // MARK: Our client, Python server

    @Test(
        "Our client accepts the Python TLS server's certificate chain when it leads to the trusted CA and names the host",
        arguments: ["127.0.0.1", "localhost"]
    )
    func validChainAccepted(host: String) async throws {
        try await PythonServer.run(serverOptions()) { _, port in
            try await expectEcho(url: "wss://\(host):\(port)/", tls: certificates.clientConfiguration())
        }
    }

    @Test("Our client rejects a certificate from a CA that only the test trusts when it uses the system roots")
    func untrustedChainRejected() async throws {
        try await PythonServer.run(serverOptions()) { _, port in
            let error = await connectionError(
                to: "wss://localhost:\(port)/", configuration: .interop(tls: TLSClientConfiguration()))
            #expect(error?.code == .certificateUntrusted, "\(String(describing: error))")
        }
    }

    @Test("Our client rejects the Python server's expired certificate as expired")
    func expiredCertificateRejected() async throws {
        try await PythonServer.run(serverOptions(.expired)) { _, port in
            let error = await connectionError(
                to: "wss://localhost:\(port)/", configuration: .interop(tls: certificates.clientConfiguration()))
            #expect(error?.code == .certificateExpired, "\(String(describing: error))")
        }
    }

    @Test("Our client rejects a trusted certificate that names another host as a hostname mismatch")
    func wrongHostRejected() async throws {
        try await PythonServer.run(serverOptions(.wrongHost)) { _, port in
            let error = await connectionError(
                to: "wss://localhost:\(port)/", configuration: .interop(tls: certificates.clientConfiguration()))
            #expect(error?.code == .hostnameMismatch, "\(String(describing: error))")
        }
    }

    @Test("A Python server that requires a client certificate refuses our client without one")
    func mutualTLSWithoutCertificateFails() async throws {
        var options = serverOptions()
        options.clientCA = certificates.caCertificatePath
        options.requireClientCertificate = true
        try await PythonServer.run(options) { _, port in
            let error = await connectionError(
                to: "wss://localhost:\(port)/", configuration: .interop(tls: certificates.clientConfiguration()))
            let failed = try #require(error, "the connection without a client certificate succeeded")
            let tlsCodes: [TransportError.Code] = [.tlsHandshakeFailed, .handshakeFailed, .ioError]
            #expect(tlsCodes.contains(failed.code), "\(failed)")
        }
    }

    @Test("A Python server that requires a client certificate accepts our client presenting one from its CA")
    func mutualTLSWithCertificateSucceeds() async throws {
        var options = serverOptions()
        options.clientCA = certificates.caCertificatePath
        options.requireClientCertificate = true
        try await PythonServer.run(options) { _, port in
            try await expectEcho(url: "wss://localhost:\(port)/", tls: certificates.clientConfiguration(presenting: .client))
        }
    }

    @Test("Our client connects when the Python server's public key matches the pin")
    func pinMatchSucceeds() async throws {
        var tls = certificates.clientConfiguration()
        tls.pinnedPublicKeys = [try certificates.publicKeyPin(of: .server)]
        try await PythonServer.run(serverOptions()) { _, port in
            try await expectEcho(url: "wss://localhost:\(port)/", tls: tls)
        }
    }

    @Test("Our client refuses a valid chain whose public key matches no pin")
    func pinMismatchFails() async throws {
        var tls = certificates.clientConfiguration()
        tls.pinnedPublicKeys = [try certificates.publicKeyPin(of: .client)]
        try await PythonServer.run(serverOptions()) { _, port in
            let error = await connectionError(to: "wss://localhost:\(port)/", configuration: .interop(tls: tls))
            #expect(error?.code == .pinMismatch, "\(String(describing: error))")
        }
    }

    // MARK: Python client, our server

    @Test("The Python client verifies our TLS server's chain against the CA and exchanges messages", arguments: ["127.0.0.1", "localhost"])
    func pythonClientAcceptsOurServer(host: String) async throws {
        let configuration = OurServer.configuration(tls: certificates.serverConfiguration())
        try await OurServer.run(configuration) { port, record in
            var options = PythonClientOptions(url: "wss://\(host):\(port)/")
            options.caFile = certificates.caCertificatePath
            options.messages = ["literal:hello over tls", MessagePattern.spec(.binary, size: 1024 * 1024)]
            let run = try await PythonClient.run(options)
            #expect(run.errors.isEmpty, "\(run.transcript)")
            #expect(run.messages.count == 2, "\(run.transcript)")
            #expect(run.messages.allSatisfy { $0.matchesSent == true }, "\(run.transcript)")
            #expect(run.closed?.code == 1000, "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(connection.messages.first == .text("hello over tls"))
            #expect(connection.closure?.code == .normal, "\(String(describing: connection.closure))")
            #expect(connection.closure?.isClean == true, "\(String(describing: connection.closure))")
        }
    }

    @Test("Our TLS server that requires a client certificate accepts the Python client presenting one from the CA")
    func ourServerAcceptsPythonClientCertificate() async throws {
        var tls = certificates.serverConfiguration()
        tls.clientCertificateVerification = .required
        tls.trustRoots = certificates.trustTestCA
        try await OurServer.run(OurServer.configuration(tls: tls)) { port, record in
            var options = PythonClientOptions(url: "wss://localhost:\(port)/")
            options.caFile = certificates.caCertificatePath
            options.certificate = (certificates.certificatePath(.client), certificates.keyPath(.client))
            options.messages = ["literal:hello with a client certificate"]
            let run = try await PythonClient.run(options)
            #expect(run.errors.isEmpty, "\(run.transcript)")
            #expect(run.messages.first?.matchesSent == true, "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(connection.messages == [.text("hello with a client certificate")])
        }
    }

    @Test("Our TLS server that requires a client certificate refuses the Python client without one")
    func ourServerRefusesPythonClientWithoutCertificate() async throws {
        var tls = certificates.serverConfiguration()
        tls.clientCertificateVerification = .required
        tls.trustRoots = certificates.trustTestCA
        try await OurServer.run(OurServer.configuration(tls: tls)) { port, record in
            var options = PythonClientOptions(url: "wss://localhost:\(port)/")
            options.caFile = certificates.caCertificatePath
            options.messages = ["literal:should not arrive"]
            let run = try await PythonClient.run(options)
            #expect(run.messages.isEmpty, "\(run.transcript)")
            #expect(!run.errors.isEmpty, "\(run.transcript)")
            #expect(record.all.isEmpty)
        }
    }
}

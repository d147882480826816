import RpcTransport
import RpcTransportNIO
import Testing

/// Lengths at the edges of their integer types in a server's answers, for our clients.
@Suite("Extreme integers from a server")
struct ServerIntegerExtremesTests {
    @Test(
        "our batch client refuses an answer whose Content-Length is too large for any integer, without a trap",
        arguments: ["99999999999999999999999999", "18446744073709551616", "9223372036854775807"]
    )
    func hugeContentLength(value: String) async throws {
        try await CannedHTTPServer.run(answering: "HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\n\r\nabc") { port in
            let client = try HTTPBatchClient(url: "http://127.0.0.1:\(port)/rpc")
            let error = await #expect(throws: TransportError.self) {
                _ = try await client.exchange([.text("hello")])
            }
            // The limit refuses it (messageTooLarge), or the HTTP parser refuses the value.
            let code = error?.code
            #expect(code == .messageTooLarge || code == .protocolViolation || code == .ioError, "\(String(describing: error))")
            await client.close()
        }
    }
}

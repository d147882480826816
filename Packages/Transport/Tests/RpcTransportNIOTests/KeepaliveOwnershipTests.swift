import RpcTransport
@testable import RpcTransportNIO
import RpcTesting
import Testing

@Suite("The keepalive loop of a WebSocket transport (127.0.0.1)")
struct KeepaliveOwnershipTests {
    @Test("close() returns once the transport's keepalive loop has ended")
    func closeAwaitsKeepalive() async throws {
        var configuration = EchoServer.configuration()
        configuration.keepalive = WebSocketKeepalive(interval: .milliseconds(20), timeout: .seconds(2))
        try await EchoServer.run(configuration: configuration) { server, observations in
            let client = try await WebSocketClient.connect(to: EchoServer.url(server))
            let webSocket = try await observations.transport()
            #expect(webSocket.keepaliveLoopCount == 1)
            await webSocket.close(code: .normal, reason: "done")
            #expect(webSocket.keepaliveLoopCount == 0)
            await client.close()
        }
    }

    @Test("abort() returns once the transport's keepalive loop has ended")
    func abortAwaitsKeepalive() async throws {
        var configuration = EchoServer.configuration()
        configuration.keepalive = WebSocketKeepalive(interval: .milliseconds(20), timeout: .seconds(2))
        try await EchoServer.run(configuration: configuration) { server, observations in
            let client = try await WebSocketClient.connect(to: EchoServer.url(server))
            let webSocket = try await observations.transport()
            #expect(webSocket.keepaliveLoopCount == 1)
            await webSocket.abort(TransportError(code: .closed, message: "test"))
            #expect(webSocket.keepaliveLoopCount == 0)
            await client.close()
        }
    }
}

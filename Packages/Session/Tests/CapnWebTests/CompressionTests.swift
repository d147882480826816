import Foundation
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

@Suite("permessage-deflate on Cap'n Web servers")
struct CompressionTests {
    /// Connects a raw WebSocket client that offers permessage-deflate (as node's `ws` does) and
    /// returns whether the server took it, after a call through it was answered.
    private static func negotiated(server: RpcServer) async throws -> Bool {
        var configuration = WebSocketClientConfiguration()
        configuration.deflate = .default
        let transport = try await WebSocketClient.connect(
            to: server.webSocketURL.absoluteString, configuration: configuration)
        let answers = Recorder<String>()
        transport.start { event in
            if case .message(let message) = event { answers.append(message.text ?? "") }
        }
        try transport.enqueue(.text(#"["push",["pipeline",0,["square"],[12]]]"#))
        try transport.enqueue(.text(#"["pull",1]"#))
        try await waitUntil("the answer") { answers.all == [#"["resolve",1,144]"#] }
        await transport.close()
        return transport.isCompressionEnabled
    }

    @Test("a server takes permessage-deflate when a client offers it, and a session runs over it")
    func negotiatedByDefault() async throws {
        try await withSocketPeers(main: { _ in Squarer() }) { peers in
            let server = peers.server
            #expect(try await Self.negotiated(server: server))
            try await waitUntil("the server to forget the session") { server.sessions.isEmpty }
        }
    }

    @Test("a server set to refuse permessage-deflate answers without it")
    func refusedWhenOff() async throws {
        try await withSocketPeers(deflate: nil, main: { _ in Squarer() }) { peers in
            let server = peers.server
            #expect(try await Self.negotiated(server: server) == false)
            try await waitUntil("the server to forget the session") { server.sessions.isEmpty }
        }
    }
}

/// A main object with `square`.
final class Squarer: RpcTarget {
    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "square" else { throw RpcErrorValue.notAFunction(method) }
        let n = try arguments.decode(0, as: Int.self)
        return .integer(Int64(n * n))
    }
}

import CapnWeb
import CapnWebTesting
import Foundation
import RpcDo
import RpcTransport
import Testing

@Suite("fallbackURLs: one client list in front of several servers of one service")
struct FallbackURLTests {
    private static func configuration(_ url: URL, fallbacks: [URL]) -> RpcClientConfiguration {
        var configuration = ClientSettingsTests.configuration(url)
        configuration.fallbackURLs = fallbacks
        configuration.offlinePolicy = .queue(limit: 16)
        return configuration
    }

    /// A URL nothing listens on any more: a server's own, once it has stopped.
    private static func deadURL() async throws -> URL {
        try await withRpcServer(main: { _ in TokenEcho(token: "gone", state: ServiceState()) }) { server in
            server.webSocketURL
        }
    }

    @Test("When its server stops, the client reconnects to the next URL of its list and calls go on there")
    func failsOverWhenTheServerStops() async throws {
        let state = ServiceState()
        try await withRpcServer(main: { _ in TokenEcho(token: "second", state: state) }) { second in
            var client: RpcClient?
            try await withRpcServer(main: { _ in TokenEcho(token: "first", state: state) }) { first in
                let connected = RpcClient(configuration: Self.configuration(first.webSocketURL, fallbacks: [second.webSocketURL]))
                client = connected
                try await connected.connect()
                let answer: String = try await connected.api.token()
                #expect(answer == "first")
            }
            guard let client else { return }
            // The first server is gone: the call waits for the reconnect, which fails there and
            // moves on to the second.
            let answer: String = try await client.api.token()
            #expect(answer == "second")
            await client.disconnect()
        }
    }

    @Test("A client whose first URL is down at start connects to the next one; a fallback URL that is not ws:// is refused at connect")
    func startsOnTheNextURL() async throws {
        let dead = try await Self.deadURL()
        try await withRpcServer(main: { _ in TokenEcho(token: "alive", state: ServiceState()) }) { server in
            let client = RpcClient(configuration: Self.configuration(dead, fallbacks: [server.webSocketURL]))
            try await client.connect()
            let answer: String = try await client.api.token()
            #expect(answer == "alive")
            await client.disconnect()

            let invalid = RpcClient(configuration: Self.configuration(server.webSocketURL, fallbacks: [URL(fileURLWithPath: "/tmp")]))
            await #expect(throws: RpcError.self) { try await invalid.connect() }
            await invalid.disconnect()
        }
    }
}

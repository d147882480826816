import NIOHTTP1
@testable import RivetKit
import RivetKitServer
import RpcDoTesting
import RpcTransportNIO
import Synchronization
import Testing

@Suite("Client faults: stale actors, a server gone mid-action, a silent server")
struct FaultTests {
    @Test("A key-based connection whose actor is destroyed re-resolves it and connects to the new one")
    func staleActor() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client {
                $0.reconnectBackoff = Backoff(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5))
            }
            let connection = client.getOrCreate("counter", key: ["stale"]).connect()
            let errors = connection.errors()
            connection.start()
            #expect(try await connection.action("increment", args: [9]) == 9)
            let oldId = try #require(connection.actorId)
            let http = try server.transports.makeHTTPClient("http://in-process", [:])
            let deleted = try await http.execute(HTTPClientRequest(method: .DELETE, path: "/actors/\(oldId)"))
            #expect(deleted.status == 200)
            // The server closes a destroyed actor's connections as RivetKit does (1000, no
            // reason): the client sees its connection lost and looks the key up again.
            var iterator = errors.makeAsyncIterator()
            let error = await iterator.next()
            #expect(error?.group == "client")
            #expect(error?.code == "connection_lost")
            try await waitUntil("a connection to the new actor") { connection.status == .connected && connection.actorId != oldId }
            #expect(try await connection.action("getCount", args: []) == 0)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("Losing the server mid-action rejects the pending action with client.connection_lost, and the connection stays disconnected while it cannot reconnect")
    func lostMidAction() async throws {
        let gate = ServerLimitTests.Gate()
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("slow", initialState: 0).action("work") { (context: inout ActorContext<Int>) in
                await gate.pass()
                context.state += 1
                return context.state
            })
        try await InProcessServer.with(registry: registry) { (server: InProcessServer) async throws in
            let client = server.client()
            let connection = client.getOrCreate("slow", key: ["mid"]).connect()
            connection.start()
            let pending = Task { try await connection.action("work", args: []) }
            try await waitUntil("the action to start") { gate.waiting == 1 }
            server.accepting = false
            server.dropConnections()
            let error = await #expect(throws: ActorError.self) { try await pending.value }
            #expect(error?.group == "client")
            #expect(error?.code == "connection_lost")
            #expect(connection.status == .disconnected)
            gate.open()
            await connection.dispose()
            await client.close()
        }
    }

    @Test("A server that never answers the upgrade makes the first open fail within the connect timeout")
    func silentServer() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            server.mode = .hanging
            let client = server.client { $0.connectTimeout = .milliseconds(50) }
            let connection = client.getOrCreate("counter", key: ["silent"]).connect()
            let errors = connection.errors()
            connection.start()
            var iterator = errors.makeAsyncIterator()
            let error = await iterator.next()
            #expect(error?.code == "connection_open_failed")
            try await ClientTests.waitFor(connection, .idle)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("A server that accepts the socket but never sends Init fails the first open within the connect timeout")
    func silentAfterUpgrade() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            server.mode = .silent
            let client = server.client { $0.connectTimeout = .milliseconds(50) }
            let connection = client.getOrCreate("counter", key: ["mute"]).connect()
            let errors = connection.errors()
            let queued = Task { () -> ActorError? in
                do throws(ActorError) {
                    _ = try await connection.action("getCount", args: [])
                    return nil
                } catch {
                    return error
                }
            }
            try await waitUntil("the action to wait") { connection.pendingActionCount == 1 }
            connection.start()
            // Bounded: without the timeout the connection would stay connecting.
            var iterator = errors.makeAsyncIterator()
            let error = await iterator.next()
            #expect(error?.group == "client")
            #expect(error?.code == "connection_open_failed")
            #expect(await queued.value?.code == "connection_open_failed")
            try await ClientTests.waitFor(connection, .idle)
            try await waitUntil("the server to see the close") { server.silentClosures.count == 1 }
            #expect(server.silentClosures.map(\.code) == [.policyViolation])
            #expect(server.openedCount == 1)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("After a first Init, a reconnection whose server stays silent is closed at the connect timeout and tried again")
    func silentOnReconnect() async throws {
        let closes = Mutex<[CloseCode?]>([])
        try await InProcessServer.with { (server: InProcessServer) async throws in
            server.mode = .handle { transport, attempt in
                // The first and third connections get their Init; the first is then dropped,
                // the second never hears anything.
                if attempt != 2 {
                    _ = try? transport.enqueue(.text(RivetMessageCodec.encode(ServerMessage.initialize(
                        actorId: "actor-\(attempt)", connectionId: "conn-\(attempt)"))))
                }
                if attempt == 1 {
                    await transport.close(code: .goingAway, reason: "")
                    return
                }
                let closure = await InProcessServer.closure(of: transport)
                closes.withLock { $0.append(closure.code) }
            }
            let client = server.client {
                $0.connectTimeout = .milliseconds(50)
                $0.reconnectBackoff = Backoff(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5))
            }
            let connection = client.getOrCreate("counter", key: ["mute-later"]).connect()
            connection.start()
            try await waitUntil("the third connection") { connection.actorId == "actor-3" && connection.status == .connected }
            #expect(server.openedCount == 3)
            try await waitUntil("the server to see the second connection closed") { !closes.withLock { $0.isEmpty } }
            #expect(closes.withLock { $0 } == [.policyViolation])
            await connection.dispose()
            await client.close()
        }
    }
}

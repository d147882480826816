import Observation
import RpcDo
import Synchronization
import Testing

@Suite("RpcLoader (the view-model helper behind the SwiftUI conveniences)")
@MainActor
struct RpcLoaderTests {
    @Test("a successful load publishes the value and clears loading")
    func success() async {
        let loader = RpcLoader<[Int]>()
        #expect(loader.state.value == nil)
        await loader.load { [1, 2] }
        #expect(loader.value == [1, 2])
        #expect(loader.error == nil)
        #expect(loader.isLoading == false)
    }

    @Test("a failed load keeps the old value and publishes the RpcError")
    func failure() async {
        let loader = RpcLoader<Int>(value: 1)
        await loader.load { throw RpcError.notFound("todo 9") }
        #expect(loader.value == 1)
        #expect(loader.error == .notFound("todo 9"))
        #expect(loader.state.hasError)
        struct Other: Error {}
        await loader.load { throw Other() }
        guard case .invalidResponse? = loader.error else {
            Issue.record("expected invalidResponse, got \(String(describing: loader.error))")
            return
        }
    }

    @Test("observers are told when the value changes")
    func observation() async {
        let loader = RpcLoader<Int>()
        let changed = Mutex(false)
        withObservationTracking {
            _ = loader.value
        } onChange: {
            changed.withLock { $0 = true }
        }
        await loader.load { 5 }
        #expect(changed.withLock { $0 })
    }

    @Test("the connection status snapshot is observable")
    func statusObservation() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
        let changed = Mutex(false)
        withObservationTracking {
            _ = client.status.state
        } onChange: {
            changed.withLock { $0 = true }
        }
        try await client.connect()
        #expect(changed.withLock { $0 })
        #expect(client.status.isConnected)
        await client.disconnect()
    }
}

@Suite("RpcLoader loading a key path of the API (what the RpcFetch property wrapper runs)")
@MainActor
struct RpcLoaderKeyPathTests {
    @Test("a key path of member reads is fetched in one call and published; a failure publishes the RpcError")
    func keyPathLoad() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
        try await client.connect()
        let version = RpcLoader<String>()
        await version.load(\.version, from: client)
        #expect(version.value == "1.0")
        let current = RpcLoader<[String: String]>()
        await current.load(\.users.current, from: client)
        #expect(current.value == ["id": "me", "name": "Me"])
        let missing = RpcLoader<String>()
        await missing.load(\.users.current.nickname, from: client)
        #expect(missing.value == nil)
        #expect(missing.state.hasError)
        await client.disconnect()
    }
}

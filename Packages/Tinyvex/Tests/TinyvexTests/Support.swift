import Foundation
import RpcTransport
import Synchronization
import Testing
import Tinyvex
import TinyvexServer

/// Collects what a publisher or stream delivers, from any thread, and how it ended.
final class ValueRecorder<Value: Sendable>: Sendable {
    private let state = Mutex<(values: [Value], failure: TinyvexError?, finished: Bool)>(([], nil, false))

    var values: [Value] { state.withLock { $0.values } }
    var failure: TinyvexError? { state.withLock { $0.failure } }
    var finished: Bool { state.withLock { $0.finished } }

    func record(_ value: Value) { state.withLock { $0.values.append(value) } }

    func finish(_ failure: TinyvexError?) {
        state.withLock {
            $0.failure = failure
            $0.finished = true
        }
    }
}

struct Channel: Codable, Sendable, Hashable {
    let channel: String
}

struct Send: Codable, Sendable {
    let channel: String
    let author: String
    let text: String
}

typealias Message = TinyvexDemoSchema.Message

/// Quick reconnects for tests.
let fastConfiguration = TinyvexClientConfiguration(reconnect: .init(maxAttempts: 200, backoff: .exponential(base: .milliseconds(20), max: .milliseconds(200))))

/// A client of an in-memory server.
func makeClient(_ server: InMemoryServer, configuration: TinyvexClientConfiguration = fastConfiguration) throws -> TinyvexClient {
    TinyvexClient(endpoint: try #require(URL(string: "memory://tinyvex")), configuration: configuration, transportFactory: server.factory)
}

/// A client of a listening server's URL, over a WebSocket.
func makeClient(_ url: String, configuration: TinyvexClientConfiguration = fastConfiguration) throws -> TinyvexClient {
    TinyvexClient(endpoint: try #require(URL(string: url)), configuration: configuration)
}

/// A database file in the temporary folder, and what removes it.
func temporaryDatabase() -> (TinyvexDatabase, cleanup: @Sendable () -> Void) {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-\(UUID().uuidString).sqlite").path
    return (.file(path), {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    })
}

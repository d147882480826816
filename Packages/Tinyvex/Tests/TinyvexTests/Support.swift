import Foundation
import RpcTransport
import Synchronization
import Testing
import Tinyvex
import TinyvexServer

/// Polls `condition` until it holds, failing the test after `timeout`.
func waitUntil(_ what: String, timeout: Duration = .seconds(15), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting until \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// Collects what a publisher or stream delivers, from any thread.
final class Recorder<Value: Sendable>: Sendable {
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

/// A client for a server's URL with quick reconnects for tests.
func makeClient(_ url: String, configuration: TinyvexClientConfiguration = TinyvexClientConfiguration(reconnect: .init(maxAttempts: 200, backoff: .exponential(base: .milliseconds(20), max: .milliseconds(200))))) throws -> TinyvexClient {
    TinyvexClient(endpoint: try #require(URL(string: url)), configuration: configuration)
}

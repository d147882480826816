#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Dispatch
import Foundation
import RpcDoTesting
import RpcWire
import Synchronization
import Testing
@testable import Tinyvex
import TinyvexServer

/// A client that asks for transitions holds every live query at one committed version: the
/// values a commit changes arrive as one message and are applied together.
@Suite("Tinyvex consistent snapshots: transitions, in memory", .timeLimit(.minutes(2)))
struct TransitionTests {
    static let channels = ["a", "b", "c"]

    /// What the observer saw that no committed state had.
    final class Violations: Sendable {
        private let state = Mutex<(checks: Int, found: [String], versions: [Int64])>((0, [], []))

        var checks: Int { state.withLock { $0.checks } }
        var found: [String] { state.withLock { $0.found } }
        var versions: [Int64] { state.withLock { $0.versions } }

        /// Checks one snapshot of the client (its version kept when the snapshots come `inOrder`,
        /// read one after the other): every message sent lies in one of the channels,
        /// and ids are given in commit order, so a state the database had holds ids `1...n`
        /// across the channels, with nothing missing below the largest.
        func check(_ snapshot: (version: Int64?, values: [(name: String, params: JSONValue, value: JSONValue?)]), at moment: String, inOrder: Bool = false) {
            var ids: [Int64] = []
            for query in snapshot.values {
                guard case .array(let messages)? = query.value else { continue }
                ids += messages.compactMap { $0["id"]?.int64Value }
            }
            let sorted = ids.sorted()
            let consistent = sorted.enumerated().allSatisfy { Int64($0.offset + 1) == $0.element }
            state.withLock { state in
                state.checks += 1
                if inOrder, let version = snapshot.version { state.versions.append(version) }
                if !consistent, state.found.count < 10 {
                    state.found.append("\(moment): ids \(sorted) across the channels are not a committed state")
                }
            }
        }
    }

    @Test("two clients commit 1,000 randomised mutations, the links cut every 100; the observer's subscriptions (on three channels) are never seen at different versions, by any listener")
    func randomised() async throws {
        try await withInMemoryServer { server in
            let queue = DispatchQueue(label: "transition-test.delivery")
            var configuration = fastConfiguration
            configuration.delivery = .queue(queue)
            let observer = try makeClient(server, configuration: configuration)
            let writer = try makeClient(server)
            let violations = Violations()
            var cancellables: [AnyCancellable] = []
            let latest = Mutex<[String: [Message]]>([:])
            for channel in Self.channels {
                cancellables.append(
                    observer.subscribe("messages.list", params: Channel(channel: channel), as: [Message].self)
                        .sink(receiveCompletion: { _ in }, receiveValue: { [observer] value in
                            latest.withLock { $0[channel] = value }
                            // A listener reading the other queries' latest values sees one version.
                            violations.check(observer.localSnapshot, at: "a value of \(channel)", inOrder: true)
                        }))
            }
            try await waitUntil("the observer's first values") { latest.withLock { $0.count } == Self.channels.count }
            var generator = SplitMix64(state: 27)
            var committed = 0
            while committed < 1_000 {
                // Some mutations come together (one group commit), some from the observer
                // itself (its own answers follow its transitions).
                let together = min(Int.random(in: 1...8, using: &generator), 1_000 - committed)
                let sends: [(client: TinyvexClient, channel: String)] = (0..<together).map { _ in
                    let client = Int.random(in: 0..<5, using: &generator) == 0 ? observer : writer
                    return (client, Self.channels.randomElement(using: &generator) ?? "a")
                }
                let base = committed
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, send) in sends.enumerated() {
                        group.addTask {
                            _ = try await send.client.mutation(
                                "messages.send", args: Send(channel: send.channel, author: "w", text: "\(base + index)"), as: Int64.self)
                        }
                    }
                    try await group.waitForAll()
                }
                committed += together
                violations.check(observer.localSnapshot, at: "after \(committed) commits")
                if committed / 100 != (committed - together) / 100 {
                    // A lost connection: the observer resubscribes while the writer goes on.
                    server.cutLinks()
                }
            }
            try await waitUntil("the observer holds all 1,000 messages") {
                latest.withLock { $0.values.reduce(0) { $0 + $1.count } } == 1_000
            }
            for violation in violations.found { Issue.record("\(violation)") }
            #expect(violations.checks > 300)
            let versions = violations.versions
            #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 <= $1 })
            #expect(observer.localSnapshot.version == 1_000)
            for cancellable in cancellables { cancellable.cancel() }
            await observer.close()
            await writer.close()
        }
    }

    @Test("a client configured without consistent snapshots gets its values one by one, as tinyvex/data")
    func optOut() async throws {
        try await withInMemoryServer { server in
            var configuration = fastConfiguration
            configuration.consistentSnapshots = false
            let client = try makeClient(server, configuration: configuration)
            let stream: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: Channel(channel: "a"), as: [Message].self)
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == [])
            let id = try await client.mutation("messages.send", args: Send(channel: "a", author: "w", text: "x"), as: Int64.self)
            #expect(try await iterator.next()?.map(\.id) == [id])
            // No transition was applied: the client holds no transition version.
            #expect(client.localSnapshot.version == nil)
            await client.close()
        }
    }
}

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Foundation
import RpcDoTesting
import Testing
import Tinyvex
import TinyvexServer

/// A seeded generator, so a failing run can be repeated.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Tinyvex read-your-writes against a model", .timeLimit(.minutes(1)))
struct ReadYourWritesTests {
    enum Operation: Sendable {
        case send(channel: String)
        case toggle(channel: String)
        case pause
    }

    struct Outcome: Sendable {
        var sent: [Message] = []
        var subscriptions: [(channel: String, recorder: ValueRecorder<[Message]>)] = []
        var violations: [String] = []
        /// How many mutations had a subscription of their own client to check.
        var checked = 0
    }

    static let channels = ["a", "b", "c"]

    static func operations(count: Int, seed: UInt64) -> [Operation] {
        var generator = SplitMix64(state: seed)
        return (0..<count).map { _ in
            let channel = channels.randomElement(using: &generator) ?? "a"
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6: return .send(channel: channel)
            case 6..<9: return .toggle(channel: channel)
            default: return .pause
            }
        }
    }

    /// Runs one client's operations; its subscriptions stay local to this task.
    static func drive(_ client: TinyvexClient, name: String, _ operations: [Operation]) async throws -> Outcome {
        var outcome = Outcome()
        var live: [String: (recorder: ValueRecorder<[Message]>, cancellable: AnyCancellable)] = [:]
        // A new subscription is waited on until it shows its first value, so every later send
        // to its channel is checked and the number checked follows from the operations alone.
        func subscribe(_ channel: String) async throws {
            let (recorder, cancellable) = record(client, channel: channel)
            live[channel] = (recorder, cancellable)
            outcome.subscriptions.append((channel, recorder))
            try await waitUntil("\(name)'s first value of \(channel)") { !recorder.values.isEmpty || recorder.finished }
        }
        for channel in channels {
            try await subscribe(channel)
        }
        for (step, operation) in operations.enumerated() {
            switch operation {
            case .send(let channel):
                // Only a subscription that already shows a value must show the write.
                let watching = live[channel].flatMap { $0.recorder.values.isEmpty ? nil : $0.recorder }
                let text = "\(name)-\(step)"
                let id = try await client.mutation("messages.send", args: Send(channel: channel, author: name, text: text), as: Int64.self)
                outcome.sent.append(Message(id: id, channel: channel, author: name, text: text))
                if watching != nil { outcome.checked += 1 }
                if let watching, watching.values.last?.contains(where: { $0.id == id }) != true {
                    outcome.violations.append("\(name) step \(step): message \(id) in \(channel) was not in its subscription when the mutation returned")
                }
            case .toggle(let channel):
                if let current = live.removeValue(forKey: channel) {
                    current.cancellable.cancel()
                } else {
                    try await subscribe(channel)
                }
            case .pause:
                await Task.yield()
            }
        }
        for entry in live.values { entry.cancellable.cancel() }
        return outcome
    }

    /// How many sends of `operations` go to a channel its client is subscribed to (all three
    /// are at the start; a toggle ends or starts one).
    static func expectedChecks(_ operations: [Operation]) -> Int {
        var live = Set(channels)
        var checks = 0
        for operation in operations {
            switch operation {
            case .send(let channel): if live.contains(channel) { checks += 1 }
            case .toggle(let channel): if live.remove(channel) == nil { live.insert(channel) }
            case .pause: break
            }
        }
        return checks
    }

    @Test("1,000 randomised operations of two concurrent clients: every snapshot is one the database had, values only grow, and each client's mutation is in its own subscriptions when it returns")
    func model() async throws {
        try await withInMemoryServer { server in
            let first = try makeClient(server)
            let second = try makeClient(server)
            let firstOperations = Self.operations(count: 500, seed: 18)
            let secondOperations = Self.operations(count: 500, seed: 1_018)
            async let one = Self.drive(first, name: "one", firstOperations)
            async let two = Self.drive(second, name: "two", secondOperations)
            let outcomes = try await [one, two]
            let sent = outcomes.flatMap(\.sent)
            #expect(sent.count > 500)
            #expect(Set(sent.map(\.id)).count == sent.count)
            for violation in outcomes.flatMap(\.violations) { Issue.record("\(violation)") }
            var snapshots = 0
            for outcome in outcomes {
                for (channel, recorder) in outcome.subscriptions {
                    let history = sent.filter { $0.channel == channel }.sorted { $0.id < $1.id }
                    let values = recorder.values
                    snapshots += values.count
                    for value in values where value != Array(history.prefix(value.count)) {
                        Issue.record("a snapshot of \(channel) that the database never had: \(value.map(\.id))")
                    }
                    for (earlier, later) in zip(values, values.dropFirst()) where later.count <= earlier.count {
                        Issue.record("a value of \(channel) did not grow: \(earlier.count) then \(later.count)")
                    }
                    #expect(recorder.failure == nil)
                }
            }
            #expect(snapshots > 500)
            let expectedChecks = Self.expectedChecks(firstOperations) + Self.expectedChecks(secondOperations)
            #expect(expectedChecks > 200)
            #expect(outcomes.map(\.checked).reduce(0, +) == expectedChecks)
            await first.close()
            await second.close()
        }
    }
}

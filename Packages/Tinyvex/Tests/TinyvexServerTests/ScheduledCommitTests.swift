import Foundation
import RpcDoTesting
import RpcWire
import Synchronization
import Testing
import TinyvexProtocol
@testable import TinyvexServer

/// Functions scheduled by mutations that share one commit: each is kept or rolled back with its
/// own mutation.
@Suite("Tinyvex scheduled functions in group commit: scheduled with their own savepoint", .timeLimit(.minutes(1)))
struct ScheduledCommitTests {
    struct Later: Codable, Sendable {
        let text: String
        let fail: Bool
    }

    struct Empty: Codable, Sendable {}

    static func schema(gate: GroupCommitTests.Gate) -> TinyvexSchema {
        var schema = TinyvexDemoSchema.schema()
        schema.mutation("test.hold") { (_, _: Empty) -> Bool in
            gate.hold()
            return true
        }
        schema.mutation("test.schedule") { (context, later: Later) -> String in
            let id = try context.scheduler.runAfter(
                .seconds(60), "messages.send", args: ["channel": "general", "author": "ann", "text": later.text])
            if later.fail { throw TinyvexServerError(.mutationFailed, "failing after scheduling") }
            return id
        }
        return schema
    }

    @Test("of mutations sharing a commit, the one that fails after scheduling leaves nothing scheduled, the others keep theirs")
    func savepoints() async throws {
        let gate = GroupCommitTests.Gate()
        let engine = try await TinyvexEngine.open(schema: Self.schema(gate: gate), database: .inMemory, configuration: TinyvexServerConfiguration())
        let commitsBefore = await engine.commitCount
        async let held = engine.mutate(connectionID: nil, identity: nil, requestID: nil, name: "test.hold", args: [:])
        try await waitUntil("the engine to be held") { gate.entered }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<6 {
                group.addTask {
                    gate.started.add(1, ordering: .relaxed)
                    let args: JSONValue = ["text": .string("m\(index)"), "fail": .bool(index % 3 == 1)]
                    do throws(TinyvexServerError) {
                        _ = try await engine.mutate(connectionID: nil, identity: nil, requestID: nil, name: "test.schedule", args: args)
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            try await waitUntil("every sender to start") { gate.started.load(ordering: .relaxed) == 6 }
            gate.release()
            var outcomes: [Int: Bool] = [:]
            for try await (index, succeeded) in group { outcomes[index] = succeeded }
            return outcomes
        }
        _ = try await held
        #expect(outcomes == [0: true, 1: false, 2: true, 3: true, 4: false, 5: true])
        // The held one, then the six in at most a few shared commits.
        #expect(await engine.commitCount - commitsBefore <= 4)
        #expect(await engine.pendingScheduledCount == 4)
        await engine.close()
    }
}

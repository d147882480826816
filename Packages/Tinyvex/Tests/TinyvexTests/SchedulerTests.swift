import Foundation
import RpcDoTesting
import RpcWire
import Testing
import Tinyvex
import TinyvexProtocol
@testable import TinyvexServer

/// Notes added now or later, by mutations and actions.
private func notesSchema() -> TinyvexSchema {
    var schema = TinyvexSchema()
    schema.query("notes.list") { (context, _: Empty) -> [String] in
        try context.all("notes").compactMap { $0["text"]?.stringValue }
    }
    schema.mutation("notes.add") { (context, note: Note) -> Int64 in
        try context.insert("notes", ["text": .string(note.text)])
    }
    schema.mutation("notes.later") { (context, later: Later) -> String in
        let id = try context.scheduler.runAfter(.milliseconds(later.delayMs), later.function ?? "notes.add", args: Note(text: later.text))
        if later.fail == true {
            throw TinyvexServerError(.mutationFailed, "failing after scheduling")
        }
        return id
    }
    schema.mutation("notes.cancel") { (context, target: Scheduled) -> Bool in
        try context.scheduler.cancel(target.id)
    }
    schema.action("notes.laterFromAction") { (context, later: Later) -> String in
        try await context.scheduler.runAfter(.milliseconds(later.delayMs), later.function ?? "notes.add", args: Note(text: later.text))
    }
    schema.action("notes.addByAction") { (context, note: Note) -> Int64 in
        guard let id = try await context.runMutation("notes.add", args: ["text": .string(note.text)]).int64Value else {
            throw TinyvexServerError(.mutationFailed, "no id")
        }
        return id
    }
    return schema
}

private struct Empty: Codable {}

private struct Note: Codable {
    let text: String
}

private struct Later: Codable {
    let text: String
    var delayMs: Int64 = 0
    var fail: Bool?
    var function: String?
}

private struct DemoSchedule: Codable {
    let channel: String
    let author: String
    let text: String
    let delayMs: Int
}

private struct Scheduled: Codable {
    let id: String
}

@Suite("Tinyvex scheduled functions: stored with their mutation, run once, across restarts", .timeLimit(.minutes(1)))
struct SchedulerTests {
    @Test("a scheduled mutation due while the server is stopped runs once when it starts again, and not again after another restart")
    func survivesRestart() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let server = InMemoryServer(schema: notesSchema())
        try await server.start(database: database)
        let client = try makeClient(server)
        let scheduledAt = ContinuousClock.now
        // Due well after the checks below, even on a loaded machine.
        _ = try await client.mutation("notes.later", args: Later(text: "later", delayMs: 1_500), as: String.self)
        #expect(try await client.query("notes.list", params: Empty(), as: [String].self) == [])
        #expect(try await pending(server) == 1)
        try await server.stop()
        #expect(try await pending(server) == nil)
        // Due while stopped.
        try await Task.sleep(until: scheduledAt + .milliseconds(1_600))
        try await server.start(database: database)
        try await waitUntil("the scheduled mutation to run at start") {
            try await client.query("notes.list", params: Empty(), as: [String].self) == ["later"]
        }
        #expect(try await pending(server) == 0)
        try await server.stop()
        try await server.start(database: database)
        #expect(try await client.query("notes.list", params: Empty(), as: [String].self) == ["later"])
        #expect(try await pending(server) == 0)
        await client.close()
        try await server.stop()
    }

    @Test("a mutation that fails after scheduling schedules nothing; a cancelled function never runs")
    func rollbackAndCancel() async throws {
        try await withInMemoryServer(schema: notesSchema()) { server in
            let client = try makeClient(server)
            do {
                _ = try await client.mutation("notes.later", args: Later(text: "never", fail: true), as: String.self)
                Issue.record("the mutation should have failed")
            } catch let error as TinyvexError {
                guard case .server(let code, _, _) = error else { Issue.record("got \(error)"); return }
                #expect(code == "TVX003")
            }
            #expect(try await pending(server) == 0)
            // Due in a minute, so the cancel comes first however loaded the machine.
            let cancelled = try await client.mutation("notes.later", args: Later(text: "cancelled", delayMs: 60_000), as: String.self)
            #expect(try await pending(server) == 1)
            #expect(try await client.mutation("notes.cancel", args: Scheduled(id: cancelled), as: Bool.self))
            // Its row is gone, so no pass can run it.
            #expect(try await pending(server) == 0)
            #expect(try await !client.mutation("notes.cancel", args: Scheduled(id: cancelled), as: Bool.self))
            let kept = try await client.mutation("notes.later", args: Later(text: "kept"), as: String.self)
            try await waitUntil("the kept function to run") {
                try await client.query("notes.list", params: Empty(), as: [String].self) == ["kept"]
            }
            #expect(try await pending(server) == 0)
            // Run already: too late to cancel.
            #expect(try await !client.mutation("notes.cancel", args: Scheduled(id: kept), as: Bool.self))
            await client.close()
        }
    }

    @Test("the demo's messages.schedule returns the scheduled id and the message arrives; messages.count counts it")
    func demoSchedule() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let id = try await client.mutation("messages.schedule", args: DemoSchedule(channel: "general", author: "ann", text: "later", delayMs: 50), as: String.self)
            #expect(!id.isEmpty)
            try await waitUntil("the scheduled message") {
                try await client.query("messages.count", params: Channel(channel: "general"), as: Int.self) == 1
            }
            #expect(try await client.query("messages.list", params: Channel(channel: "general"), as: [Message].self).map(\.text) == ["later"])
            do {
                _ = try await client.mutation("messages.schedule", args: DemoSchedule(channel: "general", author: "ann", text: "x", delayMs: -1), as: String.self)
                Issue.record("a negative delay should be refused")
            } catch let error as TinyvexError {
                guard case .server(let code, _, _) = error else { Issue.record("got \(error)"); return }
                #expect(code == "TVX003")
            }
            await client.close()
        }
    }

    @Test("actions schedule too; a scheduled action runs; unknown functions and too many waiting are refused with TVX003")
    func actionsAndLimits() async throws {
        let configuration = TinyvexServerConfiguration(maxPendingScheduledFunctions: 2)
        try await withInMemoryServer(schema: notesSchema(), configuration: configuration) { server in
            let client = try makeClient(server)
            _ = try await client.action("notes.laterFromAction", args: Later(text: "from an action"), as: String.self)
            _ = try await client.mutation("notes.later", args: Later(text: "by an action", function: "notes.addByAction"), as: String.self)
            try await waitUntil("both to run") {
                try await client.query("notes.list", params: Empty(), as: [String].self).sorted() == ["by an action", "from an action"]
            }
            func refusal(_ later: Later) async throws -> String? {
                do {
                    _ = try await client.mutation("notes.later", args: later, as: String.self)
                    return nil
                } catch let error as TinyvexError {
                    guard case .server(let code, _, let data) = error, code == "TVX003" else { return "\(error)" }
                    return data?["reason"]?.stringValue
                }
            }
            #expect(try await refusal(Later(text: "x", function: "nothing")) == "unknownFunction")
            #expect(try await refusal(Later(text: "x", delayMs: 400 * 24 * 3_600_000)) == "scheduleTooFar")
            _ = try await client.mutation("notes.later", args: Later(text: "a", delayMs: 60_000), as: String.self)
            _ = try await client.mutation("notes.later", args: Later(text: "b", delayMs: 60_000), as: String.self)
            #expect(try await refusal(Later(text: "c", delayMs: 60_000)) == "tooManyScheduledFunctions")
            #expect(try await pending(server) == 2)
            await client.close()
        }
    }
}

/// How many scheduled functions wait on the running server, `nil` when it is stopped.
private func pending(_ server: InMemoryServer) async throws -> Int? {
    guard let running = server.server else { return nil }
    return await running.engine.pendingScheduledCount
}

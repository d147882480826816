import RivetKit
@testable import RivetKitServer
import Synchronization
import Testing

/// How many times each test state type was encoded.
private let encodings = Mutex<[String: Int]>([:])

private func countEncoding(_ name: String) {
    encodings.withLock { $0[name, default: 0] += 1 }
}

private func encodingCount(_ name: String) -> Int {
    encodings.withLock { $0[name] ?? 0 }
}

/// A plain value (no references), counting its encodings.
private struct Plain: Codable, Sendable {
    var count: Int
    var flag: Bool

    init(count: Int, flag: Bool) {
        self.count = count
        self.flag = flag
    }

    enum CodingKeys: String, CodingKey { case count, flag }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decode(Int.self, forKey: .count)
        flag = try container.decode(Bool.self, forKey: .flag)
    }

    func encode(to encoder: any Encoder) throws {
        countEncoding("plain")
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(count, forKey: .count)
        try container.encode(flag, forKey: .flag)
    }
}

/// A state holding a reference (a string), counting its encodings.
private struct Named: Codable, Sendable {
    var name: String

    init(name: String) {
        self.name = name
    }

    enum CodingKeys: String, CodingKey { case name }

    init(from decoder: any Decoder) throws {
        name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
    }

    func encode(to encoder: any Encoder) throws {
        countEncoding("named")
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
    }
}

@Suite("The state's JSON after an action", .serialized)
struct StateEncodingTests {
    static let connection = ActorConn(
        info: ActorConnectionInfo(id: "c", actorId: "a", actorName: "t", key: [], namespace: "default", params: nil),
        state: nil, deliver: nil, close: nil, maxFrameSize: .max)
    static let runtime = ActorRuntime(actorId: "a", name: "t", key: [], broadcaster: ActorBroadcaster())

    static func run<State>(
        _ definition: ActorDefinition<State>, _ name: String, _ args: [JSONValue] = [], on state: ActorStateValue
    ) async throws -> ActorStateValue {
        try await definition.perform(name, args: args, state: state, connection: connection, runtime: runtime).state
    }

    @Test("A plain-value state an action only reads keeps its JSON without being encoded again; a change is encoded")
    func plainValueReadIsNotEncoded() async throws {
        let definition = ActorDefinition("plain", initialState: Plain(count: 0, flag: false))
            .action("get") { context in context.state.count }
            .action("add") { (context: inout ActorContext<Plain>, by: Int) in
                context.state.count += by
                return context.state.count
            }
            .action("touch") { context in
                context.state = Plain(count: context.state.count, flag: context.state.flag)
                return 0
            }
        // From stored JSON the state is decoded, then encoded once to know the JSON it stands for.
        var state = ActorStateValue(json: ["count": 5, "flag": false], typed: nil)
        state = try await Self.run(definition, "get", on: state)
        #expect(encodingCount("plain") == 1)
        state = try await Self.run(definition, "get", on: state)
        state = try await Self.run(definition, "touch", on: state)
        #expect(encodingCount("plain") == 1)
        #expect(state.json == ["count": 5, "flag": false])
        state = try await Self.run(definition, "add", [2], on: state)
        #expect(encodingCount("plain") == 2)
        #expect(state.json == ["count": 7, "flag": false])
        state = try await Self.run(definition, "get", on: state)
        #expect(encodingCount("plain") == 2)
        #expect(state.json == ["count": 7, "flag": false])
    }

    @Test("A state holding references is encoded after every action, even one that only reads it")
    func stateWithReferencesIsAlwaysEncoded() async throws {
        let definition = ActorDefinition("named", initialState: Named(name: "a"))
            .action("get") { context in context.state.name }
        var state = ActorStateValue(json: ["name": "a"], typed: nil)
        for round in 1 ... 3 {
            state = try await Self.run(definition, "get", on: state)
            #expect(encodingCount("named") == round)
        }
        #expect(state.json == ["name": "a"])
    }
}

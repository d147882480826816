import CapnWebMacros
import CapnWebTesting
import Testing
import CapnWebSocketTestSupport

/// A node of a chain: each step is an object, `depth` its data.
@RpcProtocol
protocol ChainNode {
    var next: ChainNode { get async throws }
    func child(_ step: Int) async throws -> ChainNode
    subscript(name: String) -> ChainNode { get }
    var depth: Int { get async throws }
}

/// The server side of ``ChainNode``.
@Rpc final class ChainTarget {
    let depth: Int

    init(depth: Int) {
        self.depth = depth
    }

    var next: ChainTarget { ChainTarget(depth: depth + 1) }
    func child(_ step: Int) -> ChainTarget { ChainTarget(depth: depth + step) }
    subscript(name: String) -> ChainTarget { ChainTarget(depth: depth + 100) }
}

@Suite("Typed pipelining")
struct TypedPipeliningTests {
    @Test("a typed chain of k capability steps and one data member is one round trip: every call frame leaves before the first answer", arguments: [1, 3, 6])
    func chainIsOneRoundTrip(k: Int) async throws {
        let log = FrameLog()
        try await withSocketSession(as: ChainNodeStub.self, main: { _ in ChainTarget(depth: 0) }, configure: log.record) { session, _ in
            var node: ChainNode = session.api
            var expected = 0
            for step in 0..<k {
                switch step % 3 {
                case 0:
                    node = try await node.next
                    expected += 1
                case 1:
                    node = try await node.child(10)
                    expected += 10
                default:
                    node = node["any"]
                    expected += 100
                }
            }
            #expect(!log.sentCalls.contains { $0.hasPrefix(">[\"pull\"") }, "no capability step awaited anything")
            let depth = try await node.depth
            #expect(depth == expected)
        }
        let pulls = log.sentCalls.filter { $0.hasPrefix(">[\"pull\"") }
        #expect(pulls.count == 1, "one pull: only the data member is awaited")
        let received = log.answers
        #expect(received.count == 1, "one answer: \(received)")
        #expect(log.sentBeforeFirstAnswer.filter { !$0.hasPrefix(">[\"release\"") } == log.sentCalls, "every call frame left before the first answer")
    }

    @Test("the seed's todos[\"123\"].author chain sends nothing until a data member is awaited")
    func authorChainSendsNothingUntilData() async throws {
        let log = FrameLog()
        let store = SeedTodoStore()
        try await withSocketSession(as: TodoAPIStub.self, main: { _ in MacroTodoRoot(store: store) }, configure: log.record) { session, _ in
            let author = try await session.api.todos["2"].author
            #expect(log.sentCalls.filter { $0.hasPrefix(">[\"pull\"") }.isEmpty)
            #expect(try await author.name == "Grace")
        }
        #expect(log.sentCalls.filter { $0.hasPrefix(">[\"pull\"") }.count == 1)
        #expect(log.answers.count == 1)
    }
}

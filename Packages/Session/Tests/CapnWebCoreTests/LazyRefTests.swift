import Synchronization
import Testing
import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
@testable import CapnWebCore

/// A main object that counts every call it receives, by method: `record(x)` answers `x`,
/// `double(x)` answers `2 * x`, `a()` answers an object whose member `b` holds an object with a
/// method `c()` that answers 42.
final class CountingAPI: RpcTarget {
    private let counts = Mutex<[String: Int]>([:])

    /// How many calls of `method` arrived.
    func count(_ method: String) -> Int {
        counts.withLock { $0[method, default: 0] }
    }

    /// Every call that arrived, summed over methods.
    var total: Int {
        counts.withLock { $0.values.reduce(0, +) }
    }

    fileprivate func received(_ method: String) {
        counts.withLock { $0[method, default: 0] += 1 }
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        received(method)
        switch method {
        case "record":
            return arguments.value(at: 0)
        case "double":
            guard case .integer(let value) = arguments.value(at: 0) else {
                throw RpcErrorValue(name: "TypeError", message: "double takes an integer")
            }
            return .integer(value * 2)
        case "a":
            return .stub(RpcStub(Holder(api: self)))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }

    /// `a()`'s result: its member `b` is a ``Leaf``.
    private final class Holder: RpcTarget {
        let leaf: Leaf

        init(api: CountingAPI) {
            leaf = Leaf(api: api)
        }

        func property(_ name: String) async throws -> RpcPayload {
            name == "b" ? .stub(RpcStub(leaf)) : .undefined
        }
    }

    /// `a().b`: its method `c()` answers 42.
    private final class Leaf: RpcTarget {
        let api: CountingAPI

        init(api: CountingAPI) {
            self.api = api
        }

        func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
            api.received(method)
            guard method == "c" else { throw RpcErrorValue.notAFunction(method) }
            return .integer(42)
        }
    }
}

/// Building a ``Ref`` sends nothing; the call leaves when it is awaited, used by a call that
/// leaves, or sent explicitly, and then exactly once.
@Suite("Lazy refs")
struct LazyRefTests {
    /// A client and a server over an in-memory pair; the client's frames, sent and received, are
    /// recorded in order.
    private struct Pair {
        let client: RpcSession<Any>
        let api: CountingAPI
        let frames: Recorder<(sent: Bool, text: String)>

        /// The frames the client sent that start with `tag` (`push`, `pull`, …).
        func sent(_ tag: String) -> [String] {
            frames.all.filter { $0.sent && $0.text.hasPrefix("[\"\(tag)\"") }.map(\.text)
        }

        /// The frames the client received that start with `tag`.
        func received(_ tag: String) -> [String] {
            frames.all.filter { !$0.sent && $0.text.hasPrefix("[\"\(tag)\"") }.map(\.text)
        }
    }

    /// Runs `body` with a fresh ``Pair`` in the session harness, which checks that both tables are
    /// back to the main entries afterwards and closes both sessions.
    private func withPair(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: (Pair) async throws -> Void
    ) async throws {
        let api = CountingAPI()
        let frames = Recorder<(sent: Bool, text: String)>()
        var configuration = Configuration()
        configuration.trace = { sent, text in frames.append((sent, text)) }
        try await withSessionPair(server: api, clientConfiguration: configuration, sourceLocation: sourceLocation) { sessions in
            try await body(Pair(client: sessions.client, api: api, frames: frames))
        }
    }

    /// A call that the server answers, made after `body`: once it is answered, everything the
    /// client sent before it has reached the server and been handled.
    private func roundTrip(_ pair: Pair) async throws {
        let echoed: String = try await pair.client.api.record("marker")
        #expect(echoed == "marker")
    }

    @Test("a ref that is built and dropped sends nothing: no push, and the server runs nothing")
    func droppedRefSendsNothing() async throws {
        try await withPair { pair in
            do {
                let built = pair.client.api.double(21)
                let chained = built.value.record(1)
                _ = (built, chained)
            }
            try await roundTrip(pair)
            #expect(pair.api.count("double") == 0)
            #expect(pair.api.count("record") == 1)
            // Only the marker's push left.
            #expect(pair.sent("push").count == 1)
        }
    }

    @Test("awaiting a ref sends its call exactly once, however many times it is awaited")
    func awaitingSendsOnce() async throws {
        try await withPair { pair in
            // In a scope, so that the refs are gone before the tables are checked.
            do {
                let doubled = pair.client.api.double(21)
                #expect(pair.sent("push").isEmpty)
                let first: Int = try await doubled.resolved()
                let second: Int = try await doubled.resolved()
                #expect(first == 42 && second == 42)
                #expect(pair.api.count("double") == 1)
                #expect(pair.sent("push").count == 1)
                #expect(pair.sent("pull").count == 1)
            }
        }
    }

    @Test("a ref passed as an argument leaves with the call that uses it, pipelined, in one round trip")
    func argumentLeavesWithTheCall() async throws {
        try await withPair { pair in
            // In a scope, so that the refs are gone before the tables are checked.
            do {
                let doubled = pair.client.api.double(21)
                let recorded = pair.client.api.record(doubled)
                #expect(pair.sent("push").isEmpty)
                let value: Int = try await recorded.resolved()
                #expect(value == 42)
                #expect(pair.api.count("double") == 1)
                #expect(pair.api.count("record") == 1)
                let pushes = pair.sent("push")
                #expect(pushes.count == 2)
                // The argument is the first push's result, referenced on the server, not a value.
                #expect(pushes.last == #"["push",["pipeline",0,["record"],[["pipeline",1]]]]"#)
                // Only the call that was awaited was pulled.
                #expect(pair.sent("pull") == [#"["pull",2]"#])
            }
        }
    }

    @Test("a chain api.a().b.c() awaited at the end leaves whole, in order, in one round trip")
    func chainIsOneRoundTrip() async throws {
        try await withPair { pair in
            let value: Int = try await pair.client.api.a().b.c()
            #expect(value == 42)
            #expect(pair.api.count("a") == 1)
            #expect(pair.api.count("c") == 1)
            let sent = pair.frames.all.filter(\.sent).map(\.text)
            // Both pushes and the one pull left before any answer came: one round trip.
            #expect(Array(sent.prefix(3)) == [
                #"["push",["pipeline",0,["a"],[]]]"#,
                #"["push",["pipeline",1,["b","c"],[]]]"#,
                #"["pull",2]"#,
            ])
            let firstAnswer = pair.frames.all.firstIndex { !$0.sent }
            let lastRequest = pair.frames.all.firstIndex { $0.sent && $0.text == #"["pull",2]"# }
            #expect(firstAnswer != nil && lastRequest != nil)
            if let firstAnswer, let lastRequest { #expect(lastRequest < firstAnswer) }
            #expect(pair.received("resolve").count == 1)
        }
    }

    @Test("a chain of refs built step by step and awaited at the end is one round trip too")
    func stepwiseChainIsOneRoundTrip() async throws {
        try await withPair { pair in
            // In a scope, so that the refs are gone before the tables are checked.
            do {
                let holder = pair.client.api.a()
                let leaf = holder.b
                let call = leaf.c()
                #expect(pair.sent("push").isEmpty)
                let value: Int = try await call.resolved()
                #expect(value == 42)
                #expect(pair.sent("push").count == 2)
                #expect(pair.sent("pull") == [#"["pull",2]"#])
                #expect(pair.received("resolve").count == 1)
            }
        }
    }

    @Test("sendNow sends the call once; awaiting it later does not send it again")
    func sendNowSendsOnce() async throws {
        try await withPair { pair in
            // In a scope, so that the refs are gone before the tables are checked.
            do {
                let doubled = pair.client.api.double(4).sendNow()
                try await waitUntil("the server to run the call") { pair.api.count("double") == 1 }
                #expect(pair.sent("push").count == 1)
                #expect(pair.sent("pull").isEmpty)
                // Sending again is a no-op.
                doubled.sendNow()
                let value: Int = try await doubled.resolved()
                #expect(value == 8)
                #expect(pair.api.count("double") == 1)
                #expect(pair.sent("push").count == 1)
                #expect(pair.sent("pull").count == 1)
            }
        }
    }

    @Test("a fire-and-forget sendNow on a dropped ref still runs on the server, once")
    func fireAndForget() async throws {
        try await withPair { pair in
            pair.client.api.record("effect").sendNow()
            try await waitUntil("the server to run the call") { pair.api.count("record") == 1 }
            try await roundTrip(pair)
            #expect(pair.api.count("record") == 2)
        }
    }

    @Test("a ref awaited from many tasks at once is sent once")
    func concurrentAwaitsSendOnce() async throws {
        try await withPair { pair in
            // In a scope, so that the refs are gone before the tables are checked.
            do {
                let doubled = pair.client.api.double(5)
                let values = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await doubled.resolved() }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(values == Array(repeating: 10, count: 8))
                #expect(pair.api.count("double") == 1)
                #expect(pair.sent("push").count == 1)
            }
        }
    }

    @Test("a map over a ref leaves only when awaited")
    func mapIsLazy() async throws {
        try await withPair { pair in
            // In a scope, so that the refs are gone before the tables are checked.
            do {
                let source = pair.client.api.record(RpcPayload.array([.integer(1), .integer(2)]))
                let api = pair.client.api
                let doubled = source.map { api.double($0) }
                #expect(pair.sent("push").isEmpty)
                let values: [Int] = try await doubled.resolved()
                #expect(values == [2, 4])
                #expect(pair.api.count("record") == 1)
                #expect(pair.api.count("double") == 2)
            }
        }
    }

    @Test("a long chain built and dropped unsent is freed without exhausting the stack")
    func longUnsentChainIsFreed() async throws {
        try await withPair { pair in
            do {
                // `call` rather than a dynamic call: assigned to a `Ref<Any>` (which is Decodable), a
                // dynamic call would pick the overload that awaits.
                var ref = pair.client.api.record.call([.integer(0)])
                for step in 1...100_000 {
                    ref = ref.record.call([.integer(Int64(step))])
                }
                _ = ref
            }
            try await roundTrip(pair)
            #expect(pair.api.total == 1)
        }
    }
}

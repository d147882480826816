import RpcTransportTesting
import Testing
import CapnWebTestSupport
import RpcTransport
@testable import CapnWebCore

final class Calculator: RpcTarget {
    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "square":
            let n = try arguments.decode(0, as: Double.self)
            return .double(n * n)
        case "makeCounter":
            return .stub(RpcStub(Counter(value: try arguments.decode(0, default: 0))))
        case "callback":
            let fn = Ref<Any>(try arguments.stub(0))
            let x = arguments.value(at: 1)
            return try await fn.call([x]).payload()
        case "fib":
            let n = try arguments.decode(0, as: Int.self)
            var a = 0, b = 1, out: [RpcPayload] = []
            for _ in 0..<n { out.append(.integer(Int64(a))); (a, b) = (b, a + b) }
            return .array(out)
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

final class Counter: RpcTarget, @unchecked Sendable {
    var value: Int
    init(value: Int) { self.value = value }
    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "increment" else { throw RpcErrorValue.notAFunction(method) }
        value += try arguments.decode(0, default: 1)
        return .integer(Int64(value))
    }
    func property(_ name: String) async throws -> RpcPayload {
        name == "value" ? .integer(Int64(value)) : .undefined
    }
}

/// Answers every call and property read, naming what was reached.
final class Anything: RpcTarget {
    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        .string("called \(method)")
    }
    func property(_ name: String) async throws -> RpcPayload {
        .string("read \(name)")
    }
}

@Suite("Smoke")
struct SmokeTests {
    @Test("names every JavaScript object inherits never reach a target; names close to them do")
    func inheritedNames() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: Anything())
            let client = peers.startClient(transport: a)
            for name in ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "toJSON", "__lookupSetter__"] {
                do {
                    let reached: String = try await client.api[dynamicMember: name]()
                    Issue.record("\(name)() reached the target: \(reached)")
                } catch let error as RpcError {
                    guard case .remote = error else {
                        Issue.record("\(name)() failed with \(error), not a remote error")
                        continue
                    }
                }
                let property = try await client.api[dynamicMember: name].payload()
                guard case .undefined = property else {
                    Issue.record("\(name) read as \(property), not undefined")
                    continue
                }
            }
            for name in ["toStrin", "constructors", "__proto", "square"] {
                let called: String = try await client.api[dynamicMember: name]()
                #expect(called == "called \(name)")
                let read: String = try await client.api[dynamicMember: name]
                #expect(read == "read \(name)")
            }
            // Releases travel asynchronously: wait for both tables to settle, then check them.
            #expect(await waitUntil { [client.getStats(), server.getStats()] == [RpcStats(imports: 1, exports: 1), RpcStats(imports: 1, exports: 1)] })
            #expect(client.getStats() == RpcStats(imports: 1, exports: 1))
            #expect(server.getStats() == RpcStats(imports: 1, exports: 1))
        }
    }

    @Test("a call over the in-memory pair returns its value and releases everything")
    func square() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: b, main: Calculator())
            let client = peers.startClient(transport: a)
            do {
                let n: Double = try await client.api.square(5)
                #expect(n == 25)
                let counter = client.api.makeCounter(10)
                let v: Int = try await counter.increment(5)
                #expect(v == 15)
                let v2: Int = try await counter.value
                #expect(v2 == 15)
                let r: Int = try await client.api.callback(RpcFunction { (x: Int) in x * 2 }, 21)
                #expect(r == 42)
                let squares: [Double] = try await client.api.fib(6).map { client.api.square($0) }.resolved()
                #expect(squares == [0, 1, 1, 4, 9, 25])
            }
            // Releases travel asynchronously: wait for both tables to settle, then check them.
            #expect(await waitUntil { [client.getStats(), server.getStats()] == [RpcStats(imports: 1, exports: 1), RpcStats(imports: 1, exports: 1)] })
            #expect(client.getStats() == RpcStats(imports: 1, exports: 1))
            #expect(server.getStats() == RpcStats(imports: 1, exports: 1))
        }
    }
}

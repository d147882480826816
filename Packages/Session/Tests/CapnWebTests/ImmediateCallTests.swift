import NIOPosix
import Synchronization
import RpcTransportTesting
import Testing
import CapnWebSocketTestSupport
@testable import CapnWebCore
import CapnWeb

/// A main object with methods answered at once (`twice`, `fail`, `relay`) and from a task
/// (`later`, which suspends, and `relayAsync`), properties read at once (`name`, `child`,
/// `broken`) and from a task (`slowName`), recording what reaches it.
final class ImmediateProbe: RpcTarget {
    /// Where an immediate answer ran.
    struct Context: Equatable, Sendable {
        var onEventLoop: Bool
        var inTask: Bool

        /// Where the calling code runs.
        static var current: Context {
            Context(
                onEventLoop: MultiThreadedEventLoopGroup.currentEventLoop != nil,
                inTask: withUnsafeCurrentTask { $0 != nil })
        }
    }

    /// Every method entered, with its argument, in the order entered.
    let entered = Recorder<String>()
    /// Every method ``callImmediately(_:with:)`` was asked for.
    let asked = Recorder<String>()
    /// Every property ``propertyImmediately(_:)`` was asked for.
    let askedProperties = Recorder<String>()
    /// Where each read of `name` ran.
    let propertyContexts = Recorder<Context>()
    /// What property `child` holds (none when `nil`).
    let child: ImmediateProbe?

    init(child: ImmediateProbe? = nil) {
        self.child = child
    }
    /// Where each `twice` ran.
    let contexts = Recorder<Context>()
    /// The first argument of each `twice` as it arrived, when it was an integer.
    let integerArguments = Recorder<Int64?>()

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        asked.append(method)
        switch method {
        case "twice":
            contexts.append(Context.current)
            if case .integer(let value) = arguments.value(at: 0) {
                integerArguments.append(value)
            } else {
                integerArguments.append(nil)
            }
            let n = try arguments.decode(0, as: Int.self)
            entered.append("twice(\(n))")
            return .integer(Int64(n * 2))
        case "fail":
            throw RpcErrorValue(name: "RangeError", message: "no such value")
        case "relay":
            // A promise of what the caller's function returns.
            return .stub(RpcStub(Ref<Any>(try arguments.stub(0)).call([])))
        default:
            return nil
        }
    }

    func propertyImmediately(_ name: String) throws -> RpcPayload? {
        askedProperties.append(name)
        switch name {
        case "name":
            propertyContexts.append(Context.current)
            return .string("probe")
        case "child":
            return child.map { .stub(RpcStub($0)) } ?? .undefined
        case "broken":
            throw RpcErrorValue(name: "RangeError", message: "no such property")
        default:
            return nil
        }
    }

    func property(_ name: String) async throws -> RpcPayload {
        guard name == "slowName" else { return .undefined }
        try await Task.sleep(for: .milliseconds(1))
        return .string("slow")
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "relayAsync":
            return .stub(RpcStub(Ref<Any>(try arguments.stub(0)).call([])))
        case "later":
            let n = try arguments.decode(0, as: Int.self)
            entered.append("later(\(n))")
            try await Task.sleep(for: .milliseconds(1))
            return .integer(Int64(n))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// A counter with only the immediate forms: `increment()` and property `value`.
final class DirectCounter: RpcTarget {
    private let count = Mutex(0)

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        guard method == "increment" else { return nil }
        return .integer(Int64(count.withLock { count in
            count += 1
            return count
        }))
    }

    func propertyImmediately(_ name: String) throws -> RpcPayload? {
        name == "value" ? .integer(Int64(count.withLock { $0 })) : nil
    }
}

/// A function the client passes: returns 42.
final class FortyTwo: RpcTarget {
    func invoke(with arguments: RpcArguments) async throws -> RpcPayload {
        .integer(42)
    }
}

@Suite("Methods answered at once")
struct ImmediateCallTests {
    /// Runs `body` in the WebSocket session harness with a session to a server whose main object
    /// is `probe`; the harness checks that both sides' tables are back to their main entries.
    private func withProbe(
        _ probe: ImmediateProbe,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (RpcSession<Any>) async throws -> Void
    ) async throws {
        try await withSocketSession(as: Any.self, main: { _ in probe }, sourceLocation: sourceLocation) { session, _ in
            try await body(session)
        }
    }

    @Test("a method answered from callImmediately runs on the connection's event loop, with no task started for it")
    func immediateRunsWithoutTask() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            for n in 1 ... 3 {
                let result: Int = try await session.api.twice(n)
                #expect(result == 2 * n)
            }
            #expect(probe.contexts.all == [ImmediateProbe.Context](repeating: .init(onEventLoop: true, inTask: false), count: 3))
        }
    }

    @Test("a method callImmediately declines goes to call, and callImmediately is asked once per call")
    func declinedGoesToCall() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            let result: Int = try await session.api.later(5)
            #expect(result == 5)
            do {
                let _: Int = try await session.api.missing()
                Issue.record("a missing method answered")
            } catch RpcError.remote(let type, _) {
                #expect(type == "TypeError")
            }
            #expect(probe.asked.all == ["later", "missing"])
            #expect(probe.entered.all == ["later(5)"])
        }
    }

    @Test("a call whose argument is a promise is answered at once with the settled argument")
    func promiseArgumentSettledFirst() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            let pending = session.api.later(7)
            let result: Int = try await session.api.twice(pending)
            #expect(result == 14)
            #expect(probe.integerArguments.all == [7])
            #expect(probe.asked.all == ["later", "twice"])
        }
    }

    @Test("an error thrown from callImmediately rejects the call with its name and message")
    func thrownErrorRejects() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            do {
                let _: Int = try await session.api.fail()
                Issue.record("fail() answered")
            } catch RpcError.remote(let type, let message) {
                #expect(type == "RangeError")
                #expect(message == "no such value")
            }
            // The session goes on.
            let result: Int = try await session.api.twice(2)
            #expect(result == 4)
        }
    }

    /// The promise the target returns is all that holds the callback's answer: the session must
    /// keep it while it waits.
    @Test("a promise a method returns, answered at once or from a task, is followed to its value")
    func returnedPromiseIsFollowed() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            let fromTask: Int = try await session.api.relayAsync(RpcStub(FortyTwo()))
            #expect(fromTask == 42)
            let atOnce: Int = try await session.api.relay(RpcStub(FortyTwo()))
            #expect(atOnce == 42)
        }
    }

    @Test("calls reach the target in the order they were made, whether answered at once or in a task")
    func orderKeptAcrossBothPaths() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            var pending: [Ref<Any>] = []
            var expected: [String] = []
            for n in 0 ..< 20 {
                let method = n % 3 == 0 ? "later" : "twice"
                pending.append(session.api[dynamicMember: method].call([.integer(Int64(n))]))
                expected.append("\(method)(\(n))")
            }
            for ref in pending { _ = try await ref.resolved(as: Int.self) }
            #expect(probe.entered.all == expected)
        }
    }

    @Test("a property answered from propertyImmediately is read on the connection's event loop, with no task started for it")
    func immediatePropertyWithoutTask() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            for _ in 1 ... 3 {
                let name: String = try await session.api.name.resolved()
                #expect(name == "probe")
            }
            #expect(probe.propertyContexts.all == [ImmediateProbe.Context](repeating: .init(onEventLoop: true, inTask: false), count: 3))
        }
    }

    @Test("a property propertyImmediately declines is read from property, and a missing one is undefined")
    func declinedPropertyGoesToProperty() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            let slow: String = try await session.api.slowName.resolved()
            #expect(slow == "slow")
            let missing = try await session.api.missing.payload()
            guard case .undefined = missing else {
                Issue.record("a missing property read as \(missing)")
                return
            }
            #expect(probe.askedProperties.all == ["slowName", "missing"])
        }
    }

    @Test("a call on an object read from a property answered at once is answered at once too")
    func callOnImmediateProperty() async throws {
        let child = ImmediateProbe()
        let probe = ImmediateProbe(child: child)
        try await withProbe(probe) { session in
            let result: Int = try await session.api.child.twice(5)
            #expect(result == 10)
            let name: String = try await session.api.child.name.resolved()
            #expect(name == "probe")
            #expect(probe.askedProperties.all == ["child", "child"])
            #expect(probe.entered.all.isEmpty)
            #expect(child.entered.all == ["twice(5)"])
            #expect(child.contexts.all == [.init(onEventLoop: true, inTask: false)])
            #expect(child.propertyContexts.all == [.init(onEventLoop: true, inTask: false)])
        }
    }

    @Test("an error thrown from propertyImmediately rejects the read and the calls made on it")
    func thrownPropertyErrorRejects() async throws {
        let probe = ImmediateProbe()
        try await withProbe(probe) { session in
            for attempt in 0 ..< 2 {
                do {
                    if attempt == 0 {
                        let _: String = try await session.api.broken.resolved()
                    } else {
                        let _: Int = try await session.api.broken.twice(1)
                    }
                    Issue.record("reading broken answered")
                } catch RpcError.remote(let type, let message) {
                    #expect(type == "RangeError")
                    #expect(message == "no such property")
                }
            }
        }
    }

    @Test("a target implementing only the immediate forms answers call and property made on it directly")
    func directCallsReachImmediateForms() async throws {
        let counter = DirectCounter()
        let value = try await counter.call("increment", with: RpcArguments([]))
        guard case .integer(1) = value else {
            Issue.record("increment answered \(value)")
            return
        }
        guard case .integer(1) = try await counter.property("value") else {
            Issue.record("value did not read 1")
            return
        }
        guard case .undefined = try await counter.property("missing") else {
            Issue.record("a missing property did not read undefined")
            return
        }
        await #expect(throws: RpcErrorValue.self) {
            _ = try await counter.call("missing", with: RpcArguments([]))
        }
    }

    @Test("a local call of a method answered at once returns its value")
    func localImmediateCall() async throws {
        let probe = ImmediateProbe()
        let ref = Ref<Any>(RpcStub(probe))
        let result: Int = try await ref.twice(21)
        #expect(result == 42)
        #expect(probe.contexts.all == [.init(onEventLoop: false, inTask: true)])
    }
}

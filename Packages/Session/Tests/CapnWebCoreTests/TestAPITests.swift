import Synchronization
import RpcTransportTesting
import Testing
import CapnWebTestSupport
import RpcTransport
import RpcWire
import CapnWebDemo
@testable import CapnWebCore

/// Every member of the conformance API (`TEST-API.md`), called by our client on our server over
/// the in-memory pair. Each test ends with both sides' tables back to `{imports: 1, exports: 1}`.
@Suite("Test API")
struct TestAPITests {
    /// Runs `body` with the client's `api` against a fresh ``TestAPI`` server in the session
    /// harness, which checks that everything was released on both sides and closes both.
    /// `body` is a closure so that every ref it made is gone once it returns.
    private func withAPI(
        configuration: Configuration = Configuration(),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (Ref<Any>) async throws -> Void
    ) async throws {
        try await withSessionPair(
            server: TestAPI(), clientConfiguration: configuration, sourceLocation: sourceLocation
        ) { pair in
            try await body(pair.client.api)
        }
    }

    /// The payload's description, to compare payloads (NaN included) as text.
    private func text(_ payload: RpcPayload) -> String {
        String(describing: payload)
    }

    @Test("square returns n * n")
    func square() async throws {
        try await withAPI { api in
            let n: Int = try await api.square(5)
            #expect(n == 25)
            let x: Double = try await api.square(1.5)
            #expect(x == 2.25)
        }
    }

    @Test("add returns a + b")
    func add() async throws {
        try await withAPI { api in
            let n: Int = try await api.add(2, 3)
            #expect(n == 5)
        }
    }

    @Test("echo returns nested arrays and objects unchanged")
    func echoNested() async throws {
        try await withAPI { api in
            let value: RpcPayload = .object([
                .init("a", [1, "x", nil, true, [[2], []]]), .init("d", 0), .init("o", ["k": ["z": 1.5]]),
            ])
            let echoed = try await api.echo(value).payload()
            #expect(text(echoed) == text(value))
        }
    }

    @Test("echo preserves every special value: bigint, dates, bytes, undefined, non-finite numbers, errors, url, headers")
    func echoSpecials() async throws {
        try await withAPI { api in
            let value: RpcPayload = .array([
                .bigint("-12345678901234567890"), .date(5), .date(nil), .bytes([1, 2, 3]),
                .bytes([1, 0, 2, 1], type: .uint16Array), .bytes([0xFF], type: .arrayBuffer), .undefined,
                .double(.infinity), .double(-.infinity), .double(.nan),
                .error(RpcErrorValue(name: "RangeError", message: "r", properties: [.init("code", 7)])),
                .error(RpcErrorValue(message: "plain")),
                .url("https://x.test/a?b=1"), .headers([CapnWebHeader("x-a", "1")]),
                .object([.init("u", .undefined), .init("nested", [[.date(0)]])]),
            ])
            let echoed = try await api.echo(value).payload()
            #expect(text(echoed) == text(value))
            guard case .array(let elements) = echoed, case .error(let error) = elements[10] else {
                Issue.record("not an error: \(echoed)")
                return
            }
            #expect(error.name == "RangeError" && error.property("code").map(text) == text(7))
        }
    }

    @Test("returnStub returns the stub it was given, still callable")
    func returnStub() async throws {
        try await withAPI { api in
            let counter = api.makeCounter(1)
            guard case .stub(let stub) = try await api.returnStub(counter).payload() else {
                Issue.record("returnStub did not return a stub")
                return
            }
            let value: Int = try await Ref<Any>(stub).increment()
            #expect(value == 2)
            let local = DemoCounter(start: 7)
            guard case .stub(let own) = try await api.returnStub(Ref<Any>(local)).payload() else {
                Issue.record("returnStub did not return a stub")
                return
            }
            let ownValue: Int = try await Ref<Any>(own).value
            #expect(ownValue == 7)
        }
    }

    @Test("getUser gives a User with profile, id, getProfile and getName")
    func getUser() async throws {
        try await withAPI { api in
            let user = api.getUser(42)
            let name: String = try await user.profile.displayName
            #expect(name == "User 42")
            let id: Int = try await user.id
            #expect(id == 42)
            let profile = try await user.getProfile().payload()
            #expect(text(profile) == text(["displayName": "User 42", "id": 42]))
            let viaMethod: String = try await user.getName()
            #expect(viaMethod == "User 42")
        }
    }

    @Test("makeCounter starts at its argument (default 0) and increment adds its amount (default 1)")
    func makeCounter() async throws {
        try await withAPI { api in
            let counter = api.makeCounter(10)
            let first: Int = try await counter.increment(5)
            #expect(first == 15)
            let second: Int = try await counter.increment()
            #expect(second == 16)
            let value: Int = try await counter.value
            #expect(value == 16)
            let zero = api.makeCounter()
            let fromZero: Int = try await zero.value
            #expect(fromZero == 0)
        }
    }

    @Test("incrementCounter calls increment on the stub it was given")
    func incrementCounter() async throws {
        try await withAPI { api in
            let counter = api.makeCounter(10)
            let byTwo: Int = try await api.incrementCounter(counter, 2)
            #expect(byTwo == 12)
            let byDefault: Int = try await api.incrementCounter(counter)
            #expect(byDefault == 13)
            let local = DemoCounter(start: 1)
            let remoteOnLocal: Int = try await api.incrementCounter(Ref<Any>(local), 4)
            #expect(remoteOnLocal == 5)
            #expect(local.value == 5)
        }
    }

    @Test("callback calls the function it was given and returns its result")
    func callback() async throws {
        try await withAPI { api in
            let result: Int = try await api.callback(RpcFunction { (x: Int) in x * 2 }, 21)
            #expect(result == 42)
        }
    }

    @Test("throwError rejects with an Error and throwTypeError with a TypeError")
    func rejections() async throws {
        try await withAPI { api in
            for (method, name) in [("throwError", "Error"), ("throwTypeError", "TypeError")] {
                do {
                    let _: Int = try await api[method].call(["boom"]).resolved()
                    Issue.record("\(method) resolved")
                } catch let error as RpcError {
                    guard case .remote(let type, let message) = error else {
                        Issue.record("unexpected \(error)")
                        continue
                    }
                    #expect(type == name && message == "boom")
                }
            }
        }
    }

    @Test("generateFibonacci gives the first n Fibonacci numbers, none for 0")
    func generateFibonacci() async throws {
        try await withAPI { api in
            let ten: [Int] = try await api.generateFibonacci(10)
            #expect(ten == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
            let none: [Int] = try await api.generateFibonacci(0)
            #expect(none.isEmpty)
        }
    }

    @Test("returnNull gives null and returnUndefined gives undefined")
    func nullAndUndefined() async throws {
        try await withAPI { api in
            let null = try await api.returnNull().payload()
            #expect(text(null) == text(.null))
            let undefined = try await api.returnUndefined().payload()
            #expect(text(undefined) == text(.undefined))
        }
    }

    @Test("makeUsers gives n User stubs with ids 1...n, usable with map")
    func makeUsers() async throws {
        try await withAPI { api in
            let names: [String] = try await api.makeUsers(3).map { $0.profile.displayName }.resolved()
            #expect(names == ["User 1", "User 2", "User 3"])
            let users = try await api.makeUsers(2).payload()
            guard case .array(let stubs) = users, stubs.count == 2, case .stub(let second) = stubs[1] else {
                Issue.record("makeUsers gave \(users)")
                return
            }
            let id: Int = try await Ref<Any>(second).id
            #expect(id == 2)
        }
    }

    @Test("hang never settles: the caller's timeout ends the wait")
    func hang() async throws {
        try await withAPI(configuration: Configuration(timeout: .milliseconds(200))) { api in
            do {
                let _: Int = try await api.hang()
                Issue.record("hang settled")
            } catch let error as RpcError {
                guard case .timeout = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
        }
    }

    @Test("delayed resolves to its value after the delay: a call made after it without one answers first")
    func delayed() async throws {
        try await withAPI { api in
            let order = Recorder<String>()
            // Far longer than the second call takes, however loaded the machine.
            let late = Task {
                let value: String = try await api.delayed(1000, "late")
                order.append(value)
            }
            let now: String = try await api.delayed(0, "now")
            order.append(now)
            try await late.value
            #expect(order.all == ["now", "late"])
        }
    }

    @Test("makeStream returns a readable stream of 0..<n")
    func makeStream() async throws {
        try await withAPI { api in
            let stream: AsyncThrowingStream<Int, any Error> = try await api.makeStream(5)
            var chunks: [Int] = []
            for try await chunk in stream { chunks.append(chunk) }
            #expect(chunks == [0, 1, 2, 3, 4])
        }
    }

    @Test("readAll reads a readable stream the client sends to the end")
    func readAll() async throws {
        try await withAPI { api in
            let (stream, continuation) = RpcReadableStream.makeStream()
            continuation.yield("r0")
            continuation.yield(1)
            continuation.finish()
            let chunks = try await api.readAll(stream).payload()
            #expect(text(chunks) == text(["r0", 1]))
        }
    }

    @Test("writeTo writes chunk0...chunk<n-1> to a client writable stream, closes it and returns n")
    func writeTo() async throws {
        let received = Mutex<[String]>([])
        let closed = Mutex(false)
        try await withAPI { api in
            let sink = RpcWritableStream(
                write: { chunk in
                    if case .string(let text) = chunk { received.withLock { $0.append(text) } }
                },
                close: { closed.withLock { $0 = true } })
            let count: Int = try await api.writeTo(sink, 3)
            #expect(count == 3)
        }
        #expect(received.withLock { $0 } == ["chunk0", "chunk1", "chunk2"])
        #expect(closed.withLock { $0 })
    }

    @Test("map runs its callback on the server per element, nested and on null")
    func map() async throws {
        try await withAPI { api in
            let squares: [Int] = try await api.generateFibonacci(6).map { api.square($0) }.resolved()
            #expect(squares == [0, 1, 1, 4, 9, 25])
            let nested: [[Int]] = try await api.generateFibonacci(4).map { n in
                api.generateFibonacci(n).map { api.square($0) }
            }.resolved()
            #expect(nested == [[], [0], [0], [0, 1]])
            let none = try await api.returnNull().map { api.square($0) }.payload()
            #expect(text(none) == text(.null))
            let captured = Mutex<[Int]>([])
            let record = RpcFunction { (x: Int) in
                captured.withLock { $0.append(x) }
                return x + 100
            }
            let viaClient: [Int] = try await api.generateFibonacci(3).map { Ref<Any>(record).call([.stub(RpcStub($0))]) }.resolved()
            #expect(viaClient == [100, 101, 101])
            #expect(captured.withLock { $0 }.sorted() == [0, 1, 1])
        }
    }

    @Test("pipelined calls and property reads need no intermediate awaits")
    func pipelining() async throws {
        try await withAPI { api in
            let squared: Int = try await api.square(api.add(2, 3))
            #expect(squared == 25)
            let name: String = try await api.getUser(api.square(3)).getName()
            #expect(name == "User 9")
            let counter = api.makeCounter(api.add(1, 1))
            let incremented: Int = try await counter.increment(counter.value)
            #expect(incremented == 4)
        }
    }

    @Test("a pipelined call on a rejected promise rejects with the same error")
    func rejectionPropagates() async throws {
        try await withAPI { api in
            do {
                let _: Int = try await api.square(api.throwTypeError("nope"))
                Issue.record("resolved")
            } catch let error as RpcError {
                guard case .remote(let type, let message) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(type == "TypeError" && message == "nope")
            }
        }
    }

    @Test("a missing member reads as undefined and calling it rejects with a TypeError")
    func missingMember() async throws {
        try await withAPI { api in
            let missing = try await api.nope.payload()
            #expect(text(missing) == text(.undefined))
            do {
                let _: Int = try await api.nope()
                Issue.record("resolved")
            } catch let error as RpcError {
                guard case .remote(let type, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(type == "TypeError")
            }
        }
    }

    /// The error a Swift caller sees for a rejection, as `(type, message)`.
    private func rejection(_ body: () async throws -> RpcPayload) async -> (String, String)? {
        do {
            let value = try await body()
            Issue.record("resolved with \(text(value))")
            return nil
        } catch let error as RpcError {
            guard case .remote(let type, let message) = error else {
                Issue.record("unexpected \(error)")
                return nil
            }
            return (type, message)
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("a path that goes on through a missing member rejects with the reference's TypeError, and Object.prototype names still read as undefined")
    func readingAPropertyOfUndefined() async throws {
        try await withAPI { api in
            let expected = ("TypeError", "Cannot read properties of undefined (reading 'x')")
            let fromTarget = await rejection { try await api.nope.x.payload() }
            #expect(fromTarget.map { $0 == expected } == true, "\(String(describing: fromTarget))")
            let fromValue = await rejection { try await api.echo(["a": 1]).b.x.payload() }
            #expect(fromValue.map { $0 == expected } == true, "\(String(describing: fromValue))")
            let fromUndefined = await rejection { try await api.returnUndefined().x.payload() }
            #expect(fromUndefined.map { $0 == expected } == true, "\(String(describing: fromUndefined))")
            let called = await rejection { try await api.nope.x().payload() }
            #expect(called.map { $0 == expected } == true, "\(String(describing: called))")
            let index = await rejection { try await api.echo([1]).missing[0].payload() }
            #expect(index.map { $0 == ("TypeError", "Cannot read properties of undefined (reading '0')") } == true)
            // One step into a missing member is still undefined, and so is a name every object
            // inherits, read from undefined; `null` reads as undefined too.
            let missing = try await api.echo(["a": 1]).b.payload()
            #expect(text(missing) == text(.undefined))
            let inherited = try await api.returnUndefined().constructor.payload()
            #expect(text(inherited) == text(.undefined))
            let ofNull = try await api.returnNull().x.payload()
            #expect(text(ofNull) == text(.undefined))
        }
    }

    @Test("delayed with a delay past setTimeout's range (1e300 ms, Infinity) answers after a millisecond, as setTimeout does, instead of trapping")
    func delayPastTheTimerRange() async throws {
        try await withAPI { api in
            let huge: String = try await api.delayed(1e300, "huge")
            #expect(huge == "huge")
            let infinite: String = try await api.delayed(Double.infinity, "infinite")
            #expect(infinite == "infinite")
        }
    }
}

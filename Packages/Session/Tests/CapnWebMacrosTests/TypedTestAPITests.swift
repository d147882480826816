import CapnWebDemo
import CapnWebMacros
import CapnWebTesting
import Testing
import CapnWebSocketTestSupport

// A typed client for the conformance test API (`TEST-API.md`).

/// A `User` target of the test API.
@RpcProtocol
protocol DemoUserAPI {
    var id: Int { get async throws }
    var profile: DemoProfile { get async throws }
    func getName() async throws -> String
    func getProfile() async throws -> DemoProfile
}

/// A user's profile.
struct DemoProfile: Codable, Sendable, Equatable {
    var displayName: String
    var id: Int
}

/// A `Counter` target of the test API.
@RpcProtocol
protocol DemoCounterAPI {
    var value: Int { get async throws }
    func increment(amount: Int) async throws -> Int
}

/// The conformance test API, typed.
@RpcProtocol
protocol ConformanceAPI {
    func square(_ n: Int) async throws -> Int
    func add(_ a: Int, _ b: Int) async throws -> Int
    func echo(_ value: [String: [Int]]) async throws -> [String: [Int]]
    func returnStub(_ counter: DemoCounterAPI) async throws -> DemoCounterAPI
    func getUser(_ id: Int) async throws -> DemoUserAPI
    func makeCounter(_ start: Int) async throws -> DemoCounterAPI
    func incrementCounter(_ counter: DemoCounterAPI, _ amount: Int) async throws -> Int
    func callback(_ function: Ref<Any>, _ x: Int) async throws -> Int
    func throwError(_ message: String) async throws
    func throwTypeError(_ message: String) async throws
    func generateFibonacci(_ n: Int) async throws -> [Int]
    func returnNull() async throws -> Int?
    func returnUndefined() async throws -> Int?
    func makeUsers(_ n: Int) async throws -> [Ref<Any>]
    func delayed(_ milliseconds: Int, _ value: String) async throws -> String
    func makeStream(_ n: Int) async throws -> AsyncThrowingStream<Int, any Error>
    @RpcName("square") func squared(_ n: Double) async throws -> Double
}

@Suite("Typed client of the conformance test API")
struct TypedTestAPITests {
    @Test("data members send and await: square, add, echo, generateFibonacci, delayed, null and undefined")
    func dataMembers() async throws {
        try await withSocketSession(as: ConformanceAPIStub.self, main: { _ in TestAPI() }) { session, _ async throws in
            #expect(try await session.api.square(7) == 49)
            #expect(try await session.api.add(2, 3) == 5)
            #expect(try await session.api.echo(["a": [1, 2]]) == ["a": [1, 2]])
            #expect(try await session.api.generateFibonacci(7) == [0, 1, 1, 2, 3, 5, 8])
            #expect(try await session.api.delayed(1, "late") == "late")
            #expect(try await session.api.returnNull() == nil)
            #expect(try await session.api.returnUndefined() == nil)
            #expect(try await session.api.squared(1.5) == 2.25)
        }
    }

    @Test("members returning objects yield typed stubs: getUser, makeCounter, makeUsers")
    func capabilityMembers() async throws {
        try await withSocketSession(as: ConformanceAPIStub.self, main: { _ in TestAPI() }) { session, _ in
            let user = try await session.api.getUser(42)
            #expect(try await user.getName() == "User 42")
            #expect(try await user.profile == DemoProfile(displayName: "User 42", id: 42))
            #expect(try await user.id == 42)
            let counter = try await session.api.makeCounter(10)
            #expect(try await counter.increment(amount: 5) == 15)
            #expect(try await counter.value == 15)
            let users = try await session.api.makeUsers(2)
            let first: String = try await users[0].getName()
            let second: String = try await users[1].getName()
            #expect([first, second] == ["User 1", "User 2"])
        }
    }

    @Test("stubs and refs pass as arguments: incrementCounter, returnStub, callback")
    func referencesAsArguments() async throws {
        try await withSocketSession(as: ConformanceAPIStub.self, main: { _ in TestAPI() }) { session, _ in
            let counter = try await session.api.makeCounter(1)
            #expect(try await session.api.incrementCounter(counter, 4) == 5)
            let same = try await session.api.returnStub(counter)
            #expect(try await same.value == 5)
            let double = RpcFunction { (x: Int) in x * 2 }
            #expect(try await session.api.callback(Ref<Any>(double), 21) == 42)
        }
    }

    @Test("rejections arrive as RpcError.remote with the error's name: throwError, throwTypeError")
    func rejections() async throws {
        try await withSocketSession(as: ConformanceAPIStub.self, main: { _ in TestAPI() }) { session, _ in
            await #expect(throws: RpcError.self) { try await session.api.throwError("boom") }
            do {
                try await session.api.throwTypeError("bad")
                Issue.record("throwTypeError did not throw")
            } catch RpcError.remote(let type, let message) {
                #expect(type == "TypeError")
                #expect(message == "bad")
            }
        }
    }

    @Test("a member returning a stream yields its chunks")
    func stream() async throws {
        try await withSocketSession(as: ConformanceAPIStub.self, main: { _ in TestAPI() }) { session, _ in
            var chunks: [Int] = []
            for try await chunk in try await session.api.makeStream(4) {
                chunks.append(chunk)
            }
            #expect(chunks == [0, 1, 2, 3])
        }
    }
}

import CapnWebMacros
import Testing

/// A final class: its synchronous members never suspend.
@Rpc final class ImmediateCalculator {
    let precision = 2

    func square(_ n: Int) -> Int { n * n }
    func slowSquare(_ n: Int) async -> Int { n * n }
}

/// An actor: only its `nonisolated` members and `let`s can be answered without a hop.
@Rpc actor ImmediateCounter {
    let name = "counter"
    private var value = 0

    nonisolated func describe() -> String { "a counter" }
    func increment() -> Int {
        value += 1
        return value
    }
}

@Suite("@Rpc immediate path")
struct ImmediatePathTests {
    /// A payload's description, to compare payloads.
    private func text(_ payload: RpcPayload) -> String {
        String(describing: payload)
    }

    @Test("a final class's synchronous method and property answer from callImmediately and propertyImmediately; its async method does not")
    func finalClass() async throws {
        let target = ImmediateCalculator()
        #expect(text(try #require(try target.callImmediately("square", with: RpcArguments([7])))) == text(RpcPayload.integer(49)))
        #expect(try target.callImmediately("slowSquare", with: RpcArguments([7])) == nil)
        #expect(text(try await target.call("slowSquare", with: RpcArguments([7]))) == text(RpcPayload.integer(49)))
        #expect(text(try #require(try target.propertyImmediately("precision"))) == text(RpcPayload.integer(2)))
    }

    @Test("an actor's nonisolated method and let answer at once; its isolated method goes to call(_:with:)")
    func actor() async throws {
        let target = ImmediateCounter()
        #expect(text(try #require(try target.callImmediately("describe", with: RpcArguments([])))) == text(RpcPayload.string("a counter")))
        #expect(text(try #require(try target.propertyImmediately("name"))) == text(RpcPayload.string("counter")))
        #expect(try target.callImmediately("increment", with: RpcArguments([])) == nil)
        #expect(text(try await target.call("increment", with: RpcArguments([]))) == text(RpcPayload.integer(1)))
        #expect(try target.propertyImmediately("value") == nil, "a private property is not exposed")
        #expect(text(try await target.property("value")) == text(RpcPayload.undefined))
    }
}

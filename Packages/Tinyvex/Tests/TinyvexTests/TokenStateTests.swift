import Testing
@testable import Tinyvex

/// A link of the series, without a transport.
private struct TestLink: GenerationalLink, Equatable {
    let generation: UInt64
}

@Suite("TokenState (the client's token and ready link, without links)")
struct TokenStateTests {
    private typealias State = TokenState<TestLink>

    private static func written(_ write: State.Write?) -> String? {
        write.map { "\($0.link.generation):\($0.token ?? "nil")" }
    }

    @Test("a handshake carries the newest token, and a link whose handshake sent it writes nothing more when ready")
    func handshakeCarriesTheToken() {
        var state = State()
        #expect(Self.written(state.setToken("a")) == nil)  // offline: only remembered
        #expect(state.handshakeBegan(generation: 1) == "a")
        #expect(Self.written(state.handshakeConnected(on: TestLink(generation: 1))) == nil)
        #expect(Self.written(state.ready(TestLink(generation: 1))) == nil)
        #expect(state.readyLink == TestLink(generation: 1))
    }

    @Test("a token set while connect is on its way is written once connect is answered, before the link is ready, and not again")
    func tokenDuringConnect() {
        var state = State()
        #expect(state.handshakeBegan(generation: 1) == nil)
        #expect(Self.written(state.setToken("b")) == nil)  // no ready link yet
        #expect(Self.written(state.handshakeConnected(on: TestLink(generation: 1))) == "1:b")
        #expect(Self.written(state.ready(TestLink(generation: 1))) == nil)
    }

    @Test("a token set after connect was answered but before the link is ready is written when it becomes ready")
    func tokenBeforeReady() {
        var state = State()
        _ = state.handshakeBegan(generation: 1)
        #expect(Self.written(state.handshakeConnected(on: TestLink(generation: 1))) == nil)
        #expect(Self.written(state.setToken("c")) == nil)
        #expect(Self.written(state.ready(TestLink(generation: 1))) == "1:c")
    }

    @Test("on a ready link each change is written at once; a lost link takes the writes and unsubscribes away until the next one")
    func readyThenLost() {
        var state = State()
        _ = state.handshakeBegan(generation: 1)
        _ = state.ready(TestLink(generation: 1))
        #expect(Self.written(state.setToken("d")) == "1:d")
        #expect(Self.written(state.setToken(nil)) == "1:nil")
        #expect(state.unsubscribeLink == TestLink(generation: 1))
        state.lost(generation: 2)  // not the ready link's: nothing changes
        #expect(state.readyLink == TestLink(generation: 1))
        state.lost(generation: 1)
        #expect(state.readyLink == nil)
        #expect(state.unsubscribeLink == nil)
        #expect(Self.written(state.setToken("e")) == nil)
        #expect(state.handshakeBegan(generation: 2) == "e")
    }

    @Test("the answer of an older link's connect does not write on the newer one")
    func staleHandshake() {
        var state = State()
        _ = state.handshakeBegan(generation: 1)
        _ = state.handshakeBegan(generation: 2)
        _ = state.setToken("f")
        #expect(Self.written(state.handshakeConnected(on: TestLink(generation: 1))) == nil)
        #expect(Self.written(state.handshakeConnected(on: TestLink(generation: 2))) == "2:f")
    }

    @Test("once closed, token changes are remembered but never written, and nothing is unsubscribed")
    func closed() {
        var state = State()
        _ = state.handshakeBegan(generation: 1)
        _ = state.ready(TestLink(generation: 1))
        state.close()
        #expect(state.closed)
        #expect(Self.written(state.setToken("g")) == nil)
        #expect(state.token == "g")
        #expect(state.unsubscribeLink == nil)
    }

    @Test("a provider is fetched before each handshake; a refusal asks it once more per link with forceRefresh; a fetch of a replaced provider is ignored; setToken replaces the provider")
    func provider() {
        var state = State()
        let provider: State.Provider = { forceRefresh in forceRefresh ? "fresh" : "cached" }
        #expect(state.setProvider(provider) == nil)  // offline: the next handshake fetches
        let fetch = state.handshakeFetch()
        #expect(fetch?.forceRefresh == false)
        let epoch = fetch?.epoch ?? 0
        #expect(Self.written(state.fetched("cached", epoch: epoch)) == nil)  // no ready link yet
        #expect(state.handshakeBegan(generation: 1) == "cached")
        let refresh = state.refused(generation: 1)
        #expect(refresh?.forceRefresh == true)
        #expect(state.refused(generation: 1) == nil)  // once per link
        #expect(Self.written(state.fetched("fresh", epoch: epoch)) == nil)
        #expect(Self.written(state.handshakeConnected(on: TestLink(generation: 1))) == "1:fresh")
        #expect(Self.written(state.ready(TestLink(generation: 1))) == nil)
        // A provider set on a ready link is fetched at once; the same token writes nothing.
        let again = state.setProvider(provider)
        #expect(again?.forceRefresh == false)
        #expect(Self.written(state.fetched("fresh", epoch: again?.epoch ?? 0)) == nil)
        #expect(Self.written(state.fetched("other", epoch: again?.epoch ?? 0)) == "1:other")
        // A token set replaces the provider: its late answers are ignored, handshakes fetch nothing.
        #expect(Self.written(state.setToken("fixed")) == "1:fixed")
        #expect(Self.written(state.fetched("late", epoch: again?.epoch ?? 0)) == nil)
        #expect(state.handshakeFetch() == nil)
        #expect(state.refused(generation: 2) == nil)
        #expect(state.token == "fixed")
    }
}

import RpcWire
import Testing
@testable import Tinyvex

/// The value a delivery carries, if it is one.
private func value(_ deliveries: [SubscriptionTable.Delivery]) -> JSONValue? {
    guard case .value(let value)? = deliveries.first?.event else { return nil }
    return value
}

@Suite("Tinyvex client's subscription table (the pure core)")
struct SubscriptionTableTests {
    private static let ignore: SubscriptionTable.Listener = { _ in }

    @Test("listeners of one query share one upstream subscription; only the last one removed returns its subId")
    func sharing() {
        var table = SubscriptionTable()
        let first = table.add(key: "q", name: "messages.list", params: ["channel": "a"], listener: Self.ignore)
        let second = table.add(key: "q", name: "messages.list", params: ["channel": "a"], listener: Self.ignore)
        let other = table.add(key: "r", name: "messages.list", params: ["channel": "b"], listener: Self.ignore)
        #expect(first.isNew && !second.isNew && other.isNew)
        #expect(first.subID == second.subID && first.subID != other.subID)
        #expect(table.upstreamCount == 2)
        #expect(table.remove(key: "q", listenerID: first.listenerID) == nil)
        #expect(table.remove(key: "q", listenerID: second.listenerID) == first.subID)
        #expect(table.remove(key: "q", listenerID: second.listenerID) == nil)
        #expect(table.upstreamCount == 1)
    }

    @Test("a value is delivered only when its seq is newer; after TVX004 the next one is taken whatever its seq; a new listener gets the current value")
    func seqOrder() {
        var table = SubscriptionTable()
        let added = table.add(key: "q", name: "n", params: .null, listener: Self.ignore)
        #expect(value(table.receive(subID: added.subID, seq: 5, value: 1)) == 1)
        #expect(table.receive(subID: added.subID, seq: 5, value: 2).isEmpty)
        #expect(table.receive(subID: added.subID, seq: 3, value: 3).isEmpty)
        #expect(table.receive(subID: "unknown", seq: 9, value: 4).isEmpty)
        table.restartSeq(subID: added.subID)
        #expect(value(table.receive(subID: added.subID, seq: 1, value: 5)) == 5)
        #expect(table.receive(subID: added.subID, seq: 1, value: 6).isEmpty)
        let late = table.add(key: "q", name: "n", params: .null, listener: Self.ignore)
        #expect(late.current == 5)
        #expect(table.receive(subID: added.subID, seq: 2, value: 7).first?.listeners.count == 2)
    }

    @Test("each query is claimed once per link: a link's handshake and the query's first subscriber never both send it, and the next link sends all again with their lastSeq")
    func claims() throws {
        var table = SubscriptionTable()
        let a = table.add(key: "a", name: "n", params: "a", listener: Self.ignore)
        let b = table.add(key: "b", name: "n", params: "b", listener: Self.ignore)
        _ = table.receive(subID: a.subID, seq: 4, value: 1)
        #expect(Set(table.claimAll(generation: 1).map(\.subID)) == [a.subID, b.subID])
        #expect(table.claim(subID: a.subID, generation: 1) == nil)
        let c = table.add(key: "c", name: "n", params: "c", listener: Self.ignore)
        #expect(table.claim(subID: c.subID, generation: 1)?.subID == c.subID)
        #expect(table.claimAll(generation: 1).isEmpty)
        let resent = table.claimAll(generation: 2)
        #expect(resent.count == 3)
        #expect(try #require(resent.first { $0.subID == a.subID }).lastSeq == 4)
        #expect(table.claim(subID: b.subID, generation: 2) == nil)
    }

    @Test("chunks join in order into one value; pieces of an older transition are dropped; pieces that do not join end the subscription")
    func chunks() {
        var table = SubscriptionTable()
        let added = table.add(key: "q", name: "n", params: .null, listener: Self.ignore)
        #expect(table.receiveChunk(subID: added.subID, seq: 1, transitionID: "t1", part: 2, total: 2, chunk: "2]").isEmpty)
        #expect(table.receiveChunk(subID: added.subID, seq: 1, transitionID: "t1", part: 3, total: 2, chunk: "x").isEmpty)
        #expect(value(table.receiveChunk(subID: added.subID, seq: 1, transitionID: "t1", part: 1, total: 2, chunk: "[1,")) == [1, 2])
        // An unfinished transition is dropped when a newer one begins.
        #expect(table.receiveChunk(subID: added.subID, seq: 2, transitionID: "t2", part: 1, total: 2, chunk: "[9,").isEmpty)
        #expect(table.receiveChunk(subID: added.subID, seq: 3, transitionID: "t3", part: 2, total: 2, chunk: "4]").isEmpty)
        #expect(value(table.receiveChunk(subID: added.subID, seq: 3, transitionID: "t3", part: 1, total: 2, chunk: "[3,")) == [3, 4])
        let broken = table.receiveChunk(subID: added.subID, seq: 4, transitionID: "t4", part: 1, total: 1, chunk: "[")
        guard case .failure(.decoding)? = broken.first?.event else {
            Issue.record("expected a decoding failure, got \(String(describing: broken.first?.event))")
            return
        }
        #expect(table.upstreamCount == 0)
    }

    @Test("a failure ends the subscription for every listener and forgets it; failAll ends them all")
    func failures() {
        var table = SubscriptionTable()
        let first = table.add(key: "q", name: "n", params: .null, listener: Self.ignore)
        _ = table.add(key: "q", name: "n", params: .null, listener: Self.ignore)
        _ = table.add(key: "r", name: "n", params: 1, listener: Self.ignore)
        let failed = table.fail(subID: first.subID, .server(code: "TVX002", message: "m", data: nil))
        #expect(failed?.listeners.count == 2)
        #expect(table.fail(subID: first.subID, .decoding("again")) == nil)
        #expect(table.claim(subID: first.subID, generation: 1) == nil)
        #expect(table.receive(subID: first.subID, seq: 1, value: 1).isEmpty)
        #expect(table.failAll(.decoding("closed")).listeners.count == 1)
        #expect(table.upstreamCount == 0)
    }

    @Test("while a handshake resubscribes, values and transitions are held back and shown together when it completes; a failed one drops them, and the next brings them again")
    func pausedDuringHandshake() {
        var table = SubscriptionTable()
        let a = table.add(key: "a", name: "n", params: 1, listener: Self.ignore)
        let b = table.add(key: "b", name: "n", params: 2, listener: Self.ignore)
        _ = table.receive(subID: a.subID, seq: 1, value: "a1")
        _ = table.receive(subID: b.subID, seq: 1, value: "b1")
        table.pause()
        #expect(table.receiveTransition(["version": 5, "changes": [["subId": .string(a.subID), "seq": 5, "value": "a5"]]]).isEmpty)
        #expect(table.receive(subID: b.subID, seq: 6, value: "b6").isEmpty)
        #expect(table.add(key: "a", name: "n", params: 1, listener: Self.ignore).current == "a1")
        #expect(table.claimAll(generation: 2).allSatisfy { $0.lastSeq == 1 })
        table.discardPaused()
        #expect(table.version == nil)
        table.pause()
        _ = table.receiveTransition(["version": 6, "changes": [["subId": .string(a.subID), "seq": 5, "value": "a5"]]])
        _ = table.receiveTransition(["version": 7, "changes": [["subId": .string(b.subID), "seq": 7, "value": "b7"]]])
        let shown = table.resume()
        #expect(Set(shown.compactMap { if case .value(let value) = $0.event { value.stringValue } else { nil } }) == ["a5", "b7"])
        #expect(table.version == 7)
        #expect(table.resume().isEmpty)
    }
}

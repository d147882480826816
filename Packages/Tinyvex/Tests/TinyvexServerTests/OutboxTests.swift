import RpcTransport
import RpcWire
import Testing
import TinyvexProtocol
@testable import TinyvexServer

@Suite("Tinyvex send queue", .timeLimit(.minutes(1)))
struct OutboxTests {
    private func data(_ subID: String, _ seq: Int) -> Outbox.Item {
        .init(kind: .data(subID: subID), messages: [.text("\(subID):\(seq)")])
    }

    @Test("TVX005: past the limit, waiting data of a subId is replaced in place, one notice is queued, and answers are never dropped")
    func coalesces() async throws {
        let outbox = Outbox(limit: 3)
        outbox.push(data("a", 1))
        outbox.push(.init(kind: .control, messages: [.text("answer")]))
        outbox.push(data("b", 1))
        for seq in 2...50 {
            outbox.push(data("a", seq))
            outbox.push(data("b", seq))
        }
        outbox.push(.init(kind: .control, messages: [.text("answer2")]))
        let items = try #require(await outbox.next())
        let texts = items.flatMap(\.messages).compactMap(\.text)
        #expect(texts.count == 5)
        #expect(texts[0] == "a:50")
        #expect(texts[1] == "answer")
        #expect(texts[2] == "b:50")
        #expect(texts[3].contains("TVX005"))
        #expect(texts[4] == "answer2")
        #expect(outbox.coalescedCount == 98)
    }

    @Test("a closed queue wakes its reader with nil")
    func close() async {
        let outbox = Outbox(limit: 3)
        async let next = outbox.next()
        outbox.close()
        #expect(await next == nil)
    }
}

import RpcTransport
import RpcWire
import Synchronization
import Testing
import TinyvexProtocol
@testable import TinyvexServer

@Suite("Tinyvex send queue", .timeLimit(.minutes(1)))
struct OutboxTests {
    private func value(_ text: String) -> EncodedValue {
        EncodedValue(text: Array(text.utf8))
    }

    private func drain(_ outbox: Outbox) async -> [Outbox.Item] {
        var items: [Outbox.Item] = []
        while outbox.count > 0, let item = await outbox.next() { items.append(item) }
        return items
    }

    private func describe(_ item: Outbox.Item) -> String {
        switch item.payload {
        case .messages(let messages): messages.compactMap(\.text).joined()
        case .value(let seq, let value):
            if case .data(let subID) = item.kind { "\(subID):\(seq):\(String(decoding: value.text, as: UTF8.self))" } else { "?" }
        case .transition(let transition):
            "v\(transition.version)[" + transition.changes.map { "\($0.subID):\($0.seq):\(String(decoding: $0.value.text, as: UTF8.self))" }.sorted().joined(separator: ",")
                + "]" + transition.requestIDs.joined(separator: ",")
        }
    }

    @Test("TVX005: a newer value of a subscription replaces the waiting one in place, one notice is queued per episode, and answers are never dropped")
    func coalesces() async throws {
        let outbox = Outbox(pauseItems: 3, pauseBytes: 1 << 20, maxBytes: 1 << 24)
        outbox.push(.init(subID: "a", seq: 1, value: value("1")))
        outbox.push(.init(kind: .control, messages: [.text("answer")]))
        outbox.push(.init(subID: "b", seq: 1, value: value("1")))
        for seq in 2...50 {
            outbox.push(.init(subID: "a", seq: Int64(seq), value: value("\(seq)")))
            outbox.push(.init(subID: "b", seq: Int64(seq), value: value("\(seq)")))
        }
        outbox.push(.init(kind: .control, messages: [.text("answer2")]))
        let texts = await drain(outbox).map(describe)
        #expect(texts.count == 5)
        #expect(texts[0] == "a:50:50")
        #expect(texts[1] == "answer")
        #expect(texts[2] == "b:50:50")
        #expect(texts[3].contains("TVX005"))
        #expect(texts[4] == "answer2")
        #expect(outbox.coalescedCount == 98)
        // A new episode after the queue ran empty gets its own notice.
        outbox.push(.init(subID: "a", seq: 51, value: value("51")))
        outbox.push(.init(subID: "a", seq: 52, value: value("52")))
        #expect(await drain(outbox).map(describe).filter { $0.contains("TVX005") }.count == 1)
    }

    @Test("a value queued for many subscriptions is held and counted once")
    func sharedValueCountedOnce() async {
        let outbox = Outbox(pauseItems: 10_000, pauseBytes: 4 << 20, maxBytes: 8 << 20)
        let big = EncodedValue(text: [UInt8](repeating: 0x31, count: 1 << 20))
        for index in 0..<1_000 {
            outbox.push(.init(subID: "s\(index)", seq: 1, value: big))
        }
        #expect(!outbox.overflowed)
        #expect(outbox.count == 1_000)
        #expect(outbox.bytes < (1 << 20) + 1_000 * 200)
    }

    @Test("past maxBytes the queue fails: it is emptied, its reader wakes with nil and overflowed is set")
    func overflowCloses() async {
        let outbox = Outbox(pauseItems: 1_000_000, pauseBytes: 1_000, maxBytes: 10_000)
        for index in 0..<1_000 {
            outbox.push(.init(kind: .control, messages: [.text("answer number \(index) with some padding")]))
        }
        #expect(outbox.overflowed)
        #expect(outbox.count == 0)
        #expect(await outbox.next() == nil)
        #expect(await outbox.waitForRoom() == false)
    }

    @Test("waitForRoom holds the reader while more than the pause thresholds wait, and lets it go as the writer catches up")
    func pausesReading() async throws {
        let outbox = Outbox(pauseItems: 4, pauseBytes: 1 << 20, maxBytes: 1 << 24)
        for index in 0..<10 {
            outbox.push(.init(kind: .control, messages: [.text("answer \(index)")]))
        }
        let released = Atomic<Bool>(false)
        let waiter = Task {
            let room = await outbox.waitForRoom()
            released.store(true, ordering: .sequentiallyConsistent)
            return room
        }
        for _ in 0..<5 { _ = await outbox.next() }
        let early = released.load(ordering: .sequentiallyConsistent)
        #expect(!early)
        _ = await outbox.next()
        #expect(await waiter.value)
        #expect(outbox.count == 4)
    }

    @Test("a closed queue wakes its reader with nil")
    func close() async {
        let outbox = Outbox(pauseItems: 3, pauseBytes: 1 << 20, maxBytes: 1 << 24)
        async let next = outbox.next()
        outbox.close()
        #expect(await next == nil)
    }
}

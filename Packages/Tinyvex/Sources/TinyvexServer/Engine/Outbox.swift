import RpcTransport
import RpcWire
import Synchronization
import TinyvexProtocol

/// One connection's bounded send queue.
///
/// Answers, errors and pongs (control) are never dropped. When the queue holds `limit` items, a
/// new `data` for a `subId` that already has one waiting replaces it in place (its value is
/// superseded), and one `TVX005` notification is queued per overflow episode.
final class Outbox: Sendable {
    enum Kind: Sendable, Equatable {
        case control
        case data(subID: String)
    }

    struct Item: Sendable {
        let kind: Kind
        let messages: [TransportMessage]
    }

    private struct State {
        var items: [Item] = []
        var overflowing = false
        var closed = false
        var waiter: CheckedContinuation<[Item]?, Never>?
        var coalesced = 0
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// How many `data` items were replaced by newer ones so far.
    var coalescedCount: Int { state.withLock { $0.coalesced } }

    /// How many items wait right now.
    var count: Int { state.withLock { $0.items.count } }

    func push(_ item: Item) {
        let resumed = state.withLock { state -> (CheckedContinuation<[Item]?, Never>, [Item])? in
            guard !state.closed else { return nil }
            if state.items.count >= limit, case .data(let subID) = item.kind,
                let index = state.items.firstIndex(where: { $0.kind == .data(subID: subID) })
            {
                state.items[index] = item
                state.coalesced += 1
                if !state.overflowing {
                    state.overflowing = true
                    state.items.append(Item(kind: .control, messages: [Outbox.backpressureNotice()]))
                }
            } else {
                state.items.append(item)
            }
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            let items = state.items
            state.items = []
            state.overflowing = false
            return (waiter, items)
        }
        if let (waiter, items) = resumed { waiter.resume(returning: items) }
    }

    /// Everything waiting, once there is something; `nil` once closed.
    func next() async -> [Item]? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [Item]?? in
                if !state.items.isEmpty {
                    let items = state.items
                    state.items = []
                    state.overflowing = false
                    return .some(items)
                }
                if state.closed { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func close() {
        let waiter = state.withLock { state in
            state.closed = true
            state.items = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    private static func backpressureNotice() -> TransportMessage {
        let params: JSONObject = [
            "code": .string(TinyvexErrorCode.backpressureDrop.rawValue),
            "message": "the send queue overflowed; waiting values were replaced by newer ones",
        ]
        return Wire.encode(.notification(method: TinyvexMethod.error, params: .named(params)))
    }
}

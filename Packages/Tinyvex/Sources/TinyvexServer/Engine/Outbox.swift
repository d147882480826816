import RpcTransport
import RpcWire
import Synchronization
import TinyvexProtocol

/// One connection's send queue, bounded in bytes.
///
/// - Answers and errors (control) are never dropped.
/// - A subscription has at most one value waiting: a newer value replaces the waiting one in
///   place (values are full snapshots), and one `TVX005` notice is queued per episode (until
///   the queue next runs empty). Values are ``EncodedValue``s shared with every other queue
///   that holds them, and a shared value is counted once here.
/// - Likewise a newer ``Transition`` is merged into the one waiting in place (the newer value
///   of each subscription, the newer version), with the same notice, unless a control item was
///   queued after the waiting one: then it waits after that item, so that no value overtakes a
///   notice the client must read first.
/// - While more than `pauseItems` items or `pauseBytes` bytes wait, ``waitForRoom()`` holds
///   the connection's reader, so requests are not read while their answers go unread.
/// - Past `maxBytes` the queue fails: it is emptied and closed, and ``overflowed`` is set so
///   the connection is closed with a clear code.
final class Outbox: Sendable {
    enum Kind: Sendable, Equatable {
        case control
        case data(subID: String)
        /// A connection's ``Transition``: at most one waits, a newer one merges into it.
        case transition
    }

    enum Payload: Sendable {
        case messages([TransportMessage])
        case value(seq: Int64, EncodedValue)
        case transition(Transition)
    }

    struct Item: Sendable {
        let kind: Kind
        let payload: Payload

        init(kind: Kind, messages: [TransportMessage]) {
            self.kind = kind
            self.payload = .messages(messages)
        }

        init(subID: String, seq: Int64, value: EncodedValue) {
            self.kind = .data(subID: subID)
            self.payload = .value(seq: seq, value)
        }

        init(transition: Transition) {
            self.kind = .transition
            self.payload = .transition(transition)
        }

        /// The messages of a control item (empty for a value).
        var messages: [TransportMessage] {
            if case .messages(let messages) = payload { return messages }
            return []
        }

        /// The bytes this item holds on its own (a shared value is counted separately).
        var ownBytes: Int {
            switch payload {
            case .messages(let messages): messages.reduce(0) { DocumentStore.saturatingAdd($0, $1.bytes.count) }
            case .value: if case .data(let subID) = kind { DocumentStore.saturatingAdd(subID.utf8.count, Outbox.valueOverhead) } else { Outbox.valueOverhead }
            case .transition(let transition):
                transition.changes.reduce(transition.requestIDs.reduce(Outbox.valueOverhead) { DocumentStore.saturatingAdd($0, $1.utf8.count) }) {
                    DocumentStore.saturatingAdd($0, DocumentStore.saturatingAdd($1.subID.utf8.count, Outbox.valueOverhead))
                }
            }
        }
    }

    /// What a waiting value costs besides its shared text (the envelope and bookkeeping).
    static let valueOverhead = 96

    private struct State {
        var items: [Item?] = []
        var head = 0
        var count = 0
        var ownBytes = 0
        /// Shared values held, with how many waiting items refer to each.
        var shared: [ObjectIdentifier: (references: Int, bytes: Int)] = [:]
        var sharedBytes = 0
        /// Where each subscription's waiting value is.
        var dataIndex: [String: Int] = [:]
        /// Where the waiting transition that a newer one may merge into is: the last one, unless
        /// a control item was queued after it (a newer value must not overtake a notice, such
        /// as `TVX004`, that the client needs first).
        var transitionIndex: Int?
        var noticed = false
        var closed = false
        var overflowed = false
        var reader: CheckedContinuation<Item?, Never>?
        var roomWaiter: CheckedContinuation<Bool, Never>?
        var coalesced = 0

        var bytes: Int { DocumentStore.saturatingAdd(ownBytes, sharedBytes) }
    }

    private let pauseItems: Int
    private let pauseBytes: Int
    private let maxBytes: Int
    private let stats: SendQueueStats?
    private let onOverflow: (@Sendable () -> Void)?
    private let state = Mutex(State())

    /// A queue that pauses reading past `pauseItems` items or `pauseBytes` bytes and fails past
    /// `maxBytes` bytes.
    /// - Parameter onOverflow: Called once when the queue fails (to close the connection).
    init(pauseItems: Int, pauseBytes: Int, maxBytes: Int, stats: SendQueueStats? = nil, onOverflow: (@Sendable () -> Void)? = nil) {
        self.stats = stats
        self.onOverflow = onOverflow
        self.pauseItems = max(1, pauseItems)
        self.pauseBytes = max(1, pauseBytes)
        self.maxBytes = max(self.pauseBytes, maxBytes)
    }

    /// How many waiting values were replaced by newer ones so far.
    var coalescedCount: Int { state.withLock { $0.coalesced } }

    /// How many items wait right now.
    var count: Int { state.withLock { $0.count } }

    /// How many bytes wait right now (each shared value once).
    var bytes: Int { state.withLock { $0.bytes } }

    /// Whether the queue failed because more than `maxBytes` waited.
    var overflowed: Bool { state.withLock { $0.overflowed } }

    func push(_ item: Item) {
        var resumeReader: (CheckedContinuation<Item?, Never>, Item?)?
        var resumeRoom: CheckedContinuation<Bool, Never>?
        var overflowedNow = false
        state.withLock { state in
            guard !state.closed else { return }
            if case .data(let subID) = item.kind, let index = state.dataIndex[subID], let waiting = state.items[index] {
                // The waiting value is superseded: replace it where it stands.
                Self.release(waiting, &state)
                state.items[index] = item
                Self.retain(item, &state)
                state.coalesced += 1
                if !state.noticed {
                    state.noticed = true
                    Self.append(Item(kind: .control, messages: [Outbox.backpressureNotice()]), &state)
                }
            } else if case .transition(let newer) = item.payload, let index = state.transitionIndex, let waiting = state.items[index],
                case .transition(let older) = waiting.payload
            {
                // The waiting transition and this one become one, where the waiting one stands:
                // the client goes from the older state to the newest at once.
                Self.release(waiting, &state)
                let merged = Item(transition: older.merged(with: newer))
                state.items[index] = merged
                Self.retain(merged, &state)
                state.coalesced += 1
                if !state.noticed {
                    state.noticed = true
                    Self.append(Item(kind: .control, messages: [Outbox.backpressureNotice()]), &state)
                }
            } else {
                Self.append(item, &state)
            }
            stats?.record(items: state.count, bytes: state.bytes)
            if state.bytes > maxBytes {
                state.overflowed = true
                overflowedNow = true
                Self.empty(&state)
                state.closed = true
                resumeRoom = state.roomWaiter
                state.roomWaiter = nil
                if let reader = state.reader {
                    state.reader = nil
                    resumeReader = (reader, nil)
                }
                return
            }
            if let reader = state.reader, let first = Self.popFirst(&state) {
                state.reader = nil
                resumeReader = (reader, first)
                resumeRoom = takeRoomWaiterIfRoom(&state)
            }
        }
        if let (reader, item) = resumeReader { reader.resume(returning: item) }
        resumeRoom?.resume(returning: !overflowedNow)
        if overflowedNow { onOverflow?() }
    }

    /// The next item to send, once there is one; `nil` once closed.
    func next() async -> Item? {
        await withCheckedContinuation { continuation in
            var room: CheckedContinuation<Bool, Never>?
            let ready = state.withLock { state -> Item?? in
                if let first = Self.popFirst(&state) {
                    room = takeRoomWaiterIfRoom(&state)
                    return .some(first)
                }
                if state.closed { return .some(nil) }
                state.reader = continuation
                return nil
            }
            room?.resume(returning: true)
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Returns once the queue is below its pause thresholds: `true`, or `false` once closed.
    func waitForRoom() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool? in
                if state.closed { return false }
                if state.count <= pauseItems, state.bytes <= pauseBytes { return true }
                state.roomWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func close() {
        let (reader, room) = state.withLock { state in
            state.closed = true
            Self.empty(&state)
            defer {
                state.reader = nil
                state.roomWaiter = nil
            }
            return (state.reader, state.roomWaiter)
        }
        reader?.resume(returning: nil)
        room?.resume(returning: false)
    }

    private func takeRoomWaiterIfRoom(_ state: inout State) -> CheckedContinuation<Bool, Never>? {
        guard let waiter = state.roomWaiter, state.count <= pauseItems, state.bytes <= pauseBytes else { return nil }
        state.roomWaiter = nil
        return waiter
    }

    private static func append(_ item: Item, _ state: inout State) {
        if case .data(let subID) = item.kind {
            state.dataIndex[subID] = state.items.count
        } else if item.kind == .transition {
            state.transitionIndex = state.items.count
        } else if item.kind == .control {
            state.transitionIndex = nil
        }
        state.items.append(item)
        state.count += 1
        retain(item, &state)
    }

    private static func popFirst(_ state: inout State) -> Item? {
        while state.head < state.items.count {
            let index = state.head
            state.head += 1
            guard let item = state.items[index] else { continue }
            state.items[index] = nil
            state.count -= 1
            if case .data(let subID) = item.kind, state.dataIndex[subID] == index {
                state.dataIndex[subID] = nil
            } else if item.kind == .transition, state.transitionIndex == index {
                state.transitionIndex = nil
            }
            release(item, &state)
            compact(&state)
            return item
        }
        return nil
    }

    /// Drops the sent slots at the front once they are half the storage, and ends the episode
    /// of coalescing once the queue is empty.
    private static func compact(_ state: inout State) {
        if state.count == 0 {
            state.items.removeAll(keepingCapacity: state.items.count < 1024)
            state.head = 0
            state.dataIndex.removeAll()
            state.transitionIndex = nil
            state.noticed = false
            return
        }
        guard state.head > 64, state.head * 2 > state.items.count else { return }
        state.items.removeFirst(state.head)
        state.head = 0
        state.dataIndex.removeAll(keepingCapacity: true)
        state.transitionIndex = nil
        for (index, item) in state.items.enumerated() {
            if let item, case .data(let subID) = item.kind { state.dataIndex[subID] = index }
            if let item, item.kind == .transition { state.transitionIndex = index }
            if let item, item.kind == .control { state.transitionIndex = nil }
        }
    }

    private static func empty(_ state: inout State) {
        state.items = []
        state.head = 0
        state.count = 0
        state.ownBytes = 0
        state.shared = [:]
        state.sharedBytes = 0
        state.dataIndex = [:]
        state.transitionIndex = nil
    }

    private static func retain(_ item: Item, _ state: inout State) {
        state.ownBytes = DocumentStore.saturatingAdd(state.ownBytes, item.ownBytes)
        switch item.payload {
        case .messages: return
        case .value(_, let value): retain(value, &state)
        case .transition(let transition): for change in transition.changes { retain(change.value, &state) }
        }
    }

    private static func retain(_ value: EncodedValue, _ state: inout State) {
        let id = ObjectIdentifier(value)
        if let entry = state.shared[id] {
            state.shared[id] = (entry.references + 1, entry.bytes)
        } else {
            state.shared[id] = (1, value.text.count)
            state.sharedBytes = DocumentStore.saturatingAdd(state.sharedBytes, value.text.count)
        }
    }

    private static func release(_ item: Item, _ state: inout State) {
        state.ownBytes = max(0, state.ownBytes - item.ownBytes)
        switch item.payload {
        case .messages: return
        case .value(_, let value): release(value, &state)
        case .transition(let transition): for change in transition.changes { release(change.value, &state) }
        }
    }

    private static func release(_ value: EncodedValue, _ state: inout State) {
        let id = ObjectIdentifier(value)
        guard let entry = state.shared[id] else { return }
        if entry.references <= 1 {
            state.shared[id] = nil
            state.sharedBytes = max(0, state.sharedBytes - entry.bytes)
        } else {
            state.shared[id] = (entry.references - 1, entry.bytes)
        }
    }

    private static func backpressureNotice() -> TransportMessage {
        let params: JSONObject = [
            "code": .string(TinyvexErrorCode.backpressureDrop.rawValue),
            "message": "the client reads slower than values change; waiting values were replaced by newer ones",
        ]
        return Wire.encode(.notification(method: TinyvexMethod.error, params: .named(params)))
    }
}

import HeapModule

/// The deadlines armed on one ``DeadlineTimer``, as a value: what to arm, what has passed, and
/// when the timer should wake next.
///
/// Most owners arm one timeout for everything (a session's call timeout), so deadlines mostly
/// come in order: those are kept in a queue in arming order, where arming appends, disarming
/// empties a slot found by its id without hashing, and a wake takes passed deadlines from the
/// front. A deadline earlier than the last one queued goes to a heap instead (O(log n)), whose
/// disarmed entries are shed once they outnumber the armed ones. Wakes are coalesced: the timer
/// wakes at most once per ``slack``, so a deadline is noticed up to ``slack`` late, never
/// early.
///
/// Storage stays bounded by what is armed: when disarmed slots behind a long wait at the front
/// outnumber the armed ones, the armed ones move to the heap under their ids and the queue
/// starts afresh.
///
/// Ids are never 0: even ones name a queue slot (its ticket, from 1, doubled), odd ones a heap
/// entry; a slot moved to the heap keeps its even id.
struct DeadlineSchedule<Payload> {
    /// How late a deadline may be noticed, so that deadlines close together share a wake.
    static var slack: Duration { .milliseconds(5) }

    private struct Queued {
        let deadline: ContinuousClock.Instant
        /// `nil` once disarmed or taken.
        var payload: Payload?
    }

    private struct Slot: Comparable {
        var deadline: ContinuousClock.Instant
        var id: UInt64

        static func < (lhs: Slot, rhs: Slot) -> Bool {
            (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
        }
    }

    /// The in-order deadlines; the live part starts at `head`, spent slots before it.
    private var queue: [Queued] = []
    private var head = 0
    /// The ticket of the slot at `head`.
    private var headTicket: UInt64 = 1
    private var queuedCount = 0
    /// The out-of-order deadlines, by id, and in order (a slot whose id is gone is spent).
    private var early: [UInt64: (deadline: ContinuousClock.Instant, payload: Payload)] = [:]
    private var heap = Heap<Slot>()
    private var earlyCount: UInt64 = 0
    /// When the timer is set to wake; `nil` while no timer runs.
    private(set) var wake: ContinuousClock.Instant?

    /// How many deadlines are armed.
    var count: Int { queuedCount + early.count }

    /// How many entries are stored, spent ones included.
    var storedCount: Int { queue.count - head + heap.count }

    /// Arms `payload` for `deadline`.
    ///
    /// - Returns: The id to disarm it with, and when the timer must now wake (it starts, or
    ///   restarts earlier); `nil` when the running timer wakes in time.
    mutating func arm(until deadline: ContinuousClock.Instant, _ payload: Payload) -> (id: UInt64, wake: ContinuousClock.Instant?) {
        let id: UInt64
        if head == queue.count || queue[queue.count - 1].deadline <= deadline {
            id = (headTicket &+ UInt64(queue.count - head)) &<< 1
            queue.append(Queued(deadline: deadline, payload: payload))
            queuedCount += 1
        } else {
            earlyCount &+= 1
            id = (earlyCount &<< 1) | 1
            early[id] = (deadline, payload)
            heap.insert(Slot(deadline: deadline, id: id))
        }
        if let wake, wake <= deadline + Self.slack { return (id, nil) }
        wake = deadline
        return (id, deadline)
    }

    /// Disarms `id`: what it armed will not run (a no-op once it ran, or was never armed).
    mutating func disarm(_ id: UInt64) {
        let offset = (id &>> 1) &- headTicket
        if id & 1 == 0, offset < UInt64(queue.count - head) {
            let index = head + Int(offset)
            guard queue[index].payload != nil else { return }
            queue[index].payload = nil
            queuedCount -= 1
            trimFront()
            if queue.count - head - queuedCount > 2 * queuedCount + 64 { moveQueueToHeap() }
        } else {
            guard early.removeValue(forKey: id) != nil else { return }
            if heap.count > 2 * early.count + 64 {
                heap = Heap(early.map { Slot(deadline: $0.value.deadline, id: $0.key) })
            }
        }
    }

    /// The timer woke at `now`: takes what has passed.
    ///
    /// - Returns: What to run, and when the timer wakes next (`nil`: it ends, nothing is armed).
    mutating func fire(at now: ContinuousClock.Instant) -> (expired: [Payload], next: ContinuousClock.Instant?) {
        var expired: [Payload] = []
        while head < queue.count {
            if let payload = queue[head].payload {
                guard queue[head].deadline <= now else { break }
                expired.append(payload)
                queue[head].payload = nil
                queuedCount -= 1
            }
            trimFront()
        }
        while let first = heap.min {
            if let entry = early[first.id], entry.deadline == first.deadline {
                guard first.deadline <= now else { break }
                expired.append(entry.payload)
                early[first.id] = nil
            }
            heap.removeMin()
        }
        let queued = head < queue.count ? queue[head].deadline : nil
        let next = [queued, heap.min?.deadline].compactMap { $0 }.min()
        wake = next.map { max($0, now + Self.slack) }
        return (expired, wake)
    }

    /// Forgets everything armed (none of it runs) and returns to no timer.
    mutating func removeAll() {
        headTicket &+= UInt64(queue.count - head)
        queue = []
        head = 0
        queuedCount = 0
        early = [:]
        heap = Heap()
        wake = nil
    }

    /// Moves what the queue holds armed to the heap, under the same ids, and empties the queue.
    private mutating func moveQueueToHeap() {
        for index in head ..< queue.count {
            guard let payload = queue[index].payload else { continue }
            let id = (headTicket &+ UInt64(index - head)) &<< 1
            early[id] = (queue[index].deadline, payload)
            heap.insert(Slot(deadline: queue[index].deadline, id: id))
        }
        headTicket &+= UInt64(queue.count - head)
        queue.removeAll(keepingCapacity: true)
        head = 0
        queuedCount = 0
    }

    /// Drops spent slots from the front; once spent slots make up most of the storage (and at
    /// least 64, so that deadlines armed one at a time reclaim it every 64 rather than every
    /// time), moves the live ones down, so that the queue does not grow without bound.
    private mutating func trimFront() {
        while head < queue.count, queue[head].payload == nil {
            head += 1
            headTicket &+= 1
        }
        guard head >= 64, head * 2 >= queue.count else { return }
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
        } else {
            queue.removeFirst(head)
        }
        head = 0
    }
}

@testable import RpcTransport
import Synchronization
import Testing

@Suite("DeadlineSchedule and DeadlineTimer (the one deadline timer: its state without a clock, then its task)")
struct DeadlineScheduleTests {
    private let origin = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant {
        origin.advanced(by: .milliseconds(milliseconds))
    }

    @Test("the first deadline starts the timer; later ones, or earlier ones within the slack, leave it; a clearly earlier one restarts it")
    func armingDecidesTheWake() {
        var schedule = DeadlineSchedule<String>()
        #expect(schedule.wake == nil)
        #expect(schedule.arm(until: at(1_000), "a").wake == at(1_000))
        #expect(schedule.arm(until: at(2_000), "b").wake == nil)
        #expect(schedule.arm(until: at(998), "c").wake == nil)
        #expect(schedule.arm(until: at(500), "d").wake == at(500))
        #expect(schedule.wake == at(500))
        #expect(schedule.count == 4)
    }

    @Test("deadlines in order are queued under even ids, earlier ones go to the heap under odd ids; no id is 0 or given twice")
    func idsNameTheirPlace() {
        var schedule = DeadlineSchedule<String>()
        let first = schedule.arm(until: at(100), "a").id
        let second = schedule.arm(until: at(200), "b").id
        let early = schedule.arm(until: at(50), "c").id
        let third = schedule.arm(until: at(200), "d").id
        #expect([first, second, third].allSatisfy { $0 != 0 && $0 % 2 == 0 })
        #expect(early % 2 == 1)
        #expect(Set([first, second, early, third]).count == 4)
    }

    @Test("a wake takes exactly what has passed, from the queue and the heap, and sets the next wake at the earliest left, never sooner than the slack")
    func firingTakesWhatPassed() {
        var schedule = DeadlineSchedule<String>()
        _ = schedule.arm(until: at(100), "a")
        _ = schedule.arm(until: at(101), "b")
        _ = schedule.arm(until: at(300), "c")
        _ = schedule.arm(until: at(102), "early")
        let first = schedule.fire(at: at(100))
        #expect(first.expired == ["a"])
        #expect(first.next == at(105))  // b is 1 ms away: it shares a wake 5 ms on
        let second = schedule.fire(at: at(105))
        #expect(second.expired == ["b", "early"])
        #expect(second.next == at(300))
        let third = schedule.fire(at: at(301))
        #expect(third.expired == ["c"])
        #expect(third.next == nil)
        #expect(schedule.wake == nil)
        #expect(schedule.count == 0)
    }

    @Test("a disarmed deadline never runs, disarming twice or an id never given changes nothing, and a wake with nothing left ends the timer")
    func disarmedNeverRuns() {
        var schedule = DeadlineSchedule<String>()
        let queued = schedule.arm(until: at(100), "a").id
        let early = schedule.arm(until: at(50), "b").id
        schedule.disarm(queued)
        schedule.disarm(early)
        schedule.disarm(queued)
        schedule.disarm(1_000_000)
        schedule.disarm(1_000_001)
        #expect(schedule.count == 0)
        let fired = schedule.fire(at: at(200))
        #expect(fired.expired.isEmpty)
        #expect(fired.next == nil)
        // Once the timer ended, the next deadline starts it again.
        #expect(schedule.arm(until: at(900), "c").wake == at(900))
    }

    @Test("deadlines finished in any order are all dropped, and one left among them still expires")
    func finishedOutOfOrder() {
        var schedule = DeadlineSchedule<Int>()
        let ids = (0 ..< 300).map { schedule.arm(until: at(1_000 + $0), $0).id }
        for (index, id) in ids.enumerated() where index % 3 == 1 { schedule.disarm(id) }
        #expect(schedule.count == 200)
        for (index, id) in ids.enumerated().reversed() where index % 3 != 1 && index != 150 { schedule.disarm(id) }
        #expect(schedule.count == 1)
        #expect(schedule.fire(at: at(2_000)).expired == [150])
    }

    @Test("a wait moved from the queue to the heap is still disarmed by its id, and still expires")
    func movedWaitsKeepTheirIDs() {
        var schedule = DeadlineSchedule<Int>()
        let kept = schedule.arm(until: at(10_000), -1).id
        let disarmedLater = schedule.arm(until: at(10_001), -2).id
        for id in 0 ..< 200 {
            schedule.disarm(schedule.arm(until: at(10_002 + id), id).id)
        }
        #expect(schedule.storedCount < 150)
        schedule.disarm(disarmedLater)
        #expect(schedule.count == 1)
        #expect(schedule.fire(at: at(20_000)).expired == [-1])
        schedule.disarm(kept)  // already taken: a no-op
        #expect(schedule.count == 0)
    }

    @Test("what was disarmed is shed, in the queue and in the heap, so arming and disarming forever stays bounded")
    func spentEntriesAreShed() {
        var schedule = DeadlineSchedule<Int>()
        _ = schedule.arm(until: at(60_000), 0)
        var largest = 0
        for id in 1 ... 10_000 {
            let queued = schedule.arm(until: at(60_000 + id), id).id
            let early = schedule.arm(until: at(id), -id).id
            largest = max(largest, schedule.storedCount)
            schedule.disarm(queued)
            schedule.disarm(early)
        }
        // The long wait at the front does not keep the slots behind it: they stay within
        // a few times what is armed, plus the two allowances of 64.
        #expect(largest <= 200)
        #expect(schedule.count == 1)
        #expect(schedule.fire(at: at(70_000)).expired == [0])
    }

    @Test("the timer expires what passed, not what was disarmed, and once closed arms nothing")
    func timerExpiresWhatPassed() async throws {
        let ran = Collected<String>()
        let timer = DeadlineTimer()
        let disarmed = try #require(timer.arm(after: .milliseconds(20), NamedWait("disarmed", ran)))
        timer.disarm(disarmed)
        let passed = NamedWait("passed", ran)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            passed.whenExpired(continuation)
            _ = timer.arm(until: .now + .milliseconds(30), passed)
        }
        #expect(ran.all == ["passed"])
        #expect(timer.armedCount == 0)
        timer.close()
        #expect(timer.arm(until: .now, NamedWait("late", ran)) == nil)
        #expect(timer.armedCount == 0)
    }

    @Test("one tagged wait armed for many deadlines is told the tag of each that passed, not of those disarmed")
    func taggedWaitIsToldItsTags() async throws {
        let timer = DeadlineTimer()
        let waits = TaggedWaits()
        let disarmed = try #require(timer.arm(until: .now + .milliseconds(10), waits, tag: 7))
        timer.disarm(disarmed)
        let told = await withCheckedContinuation { (continuation: CheckedContinuation<[UInt64], Never>) in
            waits.whenTold(2, continuation)
            _ = timer.arm(until: .now + .milliseconds(20), waits, tag: 3)
            _ = timer.arm(until: .now + .milliseconds(25), waits, tag: 5)
        }
        #expect(told.sorted() == [3, 5])
        #expect(timer.armedCount == 0)
        timer.close()
        #expect(timer.arm(until: .now, waits, tag: 9) == nil)
    }
}

/// Waits kept by tag: records each tag it is told, and resumes whoever waits for a count.
private final class TaggedWaits: TaggedExpiringWait {
    private struct State {
        var told: [UInt64] = []
        var waiter: (count: Int, continuation: CheckedContinuation<[UInt64], Never>)?
    }

    private let state = Mutex(State())

    func whenTold(_ count: Int, _ continuation: CheckedContinuation<[UInt64], Never>) {
        state.withLock { $0.waiter = (count, continuation) }
    }

    func expire(tag: UInt64) {
        let done = state.withLock { state -> (CheckedContinuation<[UInt64], Never>, [UInt64])? in
            state.told.append(tag)
            guard let waiter = state.waiter, state.told.count >= waiter.count else { return nil }
            state.waiter = nil
            return (waiter.continuation, state.told)
        }
        if let (continuation, told) = done { continuation.resume(returning: told) }
    }
}

/// A wait that records its name when it expires, and resumes whoever waits for that.
private final class NamedWait: ExpiringWait {
    private let name: String
    private let log: Collected<String>
    private let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)

    init(_ name: String, _ log: Collected<String>) {
        self.name = name
        self.log = log
    }

    func whenExpired(_ continuation: CheckedContinuation<Void, Never>) {
        waiter.withLock { $0 = continuation }
    }

    func expire() {
        log.append(name)
        waiter.withLock { $0.take() }?.resume()
    }
}

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
        #expect(schedule.arm(1, until: at(1_000), "a") == at(1_000))
        #expect(schedule.arm(2, until: at(2_000), "b") == nil)
        #expect(schedule.arm(3, until: at(998), "c") == nil)
        #expect(schedule.arm(4, until: at(500), "d") == at(500))
        #expect(schedule.wake == at(500))
        #expect(schedule.count == 4)
    }

    @Test("a wake takes exactly what has passed and sets the next wake at the earliest left, never sooner than the slack")
    func firingTakesWhatPassed() {
        var schedule = DeadlineSchedule<String>()
        _ = schedule.arm(1, until: at(100), "a")
        _ = schedule.arm(2, until: at(101), "b")
        _ = schedule.arm(3, until: at(300), "c")
        let first = schedule.fire(at: at(100))
        #expect(first.expired == ["a"])
        #expect(first.next == at(105))  // b is 1 ms away: it shares a wake 5 ms on
        let second = schedule.fire(at: at(105))
        #expect(second.expired == ["b"])
        #expect(second.next == at(300))
        let third = schedule.fire(at: at(301))
        #expect(third.expired == ["c"])
        #expect(third.next == nil)
        #expect(schedule.wake == nil)
        #expect(schedule.count == 0)
    }

    @Test("a disarmed deadline never runs, and a wake with nothing left ends the timer")
    func disarmedNeverRuns() {
        var schedule = DeadlineSchedule<String>()
        _ = schedule.arm(1, until: at(100), "a")
        schedule.disarm(1)
        schedule.disarm(7)  // never armed: a no-op
        let fired = schedule.fire(at: at(200))
        #expect(fired.expired.isEmpty)
        #expect(fired.next == nil)
        // Once the timer ended, the next deadline starts it again.
        #expect(schedule.arm(2, until: at(900), "b") == at(900))
    }

    @Test("deadlines armed out of order pass in order, and a re-armed id runs only for its latest deadline")
    func outOfOrderAndReArmed() {
        var schedule = DeadlineSchedule<String>()
        _ = schedule.arm(1, until: at(300), "a")
        _ = schedule.arm(2, until: at(100), "b")
        _ = schedule.arm(3, until: at(200), "c")
        _ = schedule.arm(1, until: at(400), "a again")
        #expect(schedule.fire(at: at(250)).expired == ["b", "c"])
        #expect(schedule.fire(at: at(350)).expired == [])
        #expect(schedule.fire(at: at(400)).expired == ["a again"])
        #expect(schedule.count == 0)
    }

    @Test("what was disarmed is shed once it outnumbers what is armed, so arming and disarming forever stays bounded")
    func spentSlotsAreShed() {
        var schedule = DeadlineSchedule<Int>()
        _ = schedule.arm(0, until: at(60_000), 0)
        var largest = 0
        for id in 1 ... 10_000 {
            _ = schedule.arm(UInt64(id), until: at(60_000 + id), id)
            largest = max(largest, schedule.storedCount)
            schedule.disarm(UInt64(id))
        }
        #expect(largest <= 2 * 1 + 64 + 1)
        #expect(schedule.count == 1)
        #expect(schedule.fire(at: at(70_000)).expired == [0])
    }

    @Test("the timer runs what passed, not what was disarmed, and once closed arms nothing")
    func timerRunsWhatPassed() async throws {
        let timer = DeadlineTimer()
        let ran = Mutex<[String]>([])
        let disarmed = timer.makeID()
        #expect(timer.arm(disarmed, until: .now + .milliseconds(20)) { ran.withLock { $0.append("disarmed") } })
        timer.disarm(disarmed)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            timer.arm(timer.makeID(), until: .now + .milliseconds(30)) {
                ran.withLock { $0.append("passed") }
                continuation.resume()
            }
        }
        #expect(ran.withLock { $0 } == ["passed"])
        #expect(timer.armedCount == 0)
        timer.close()
        #expect(!timer.arm(timer.makeID(), until: .now) { ran.withLock { $0.append("late") } })
        #expect(timer.armedCount == 0)
    }
}

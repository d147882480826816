@testable import RpcDo
import Testing

@Suite("DeadlineSchedule (the channel timer's state, without a clock)")
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
}

import RpcTesting
@testable import RpcTransport
import Synchronization
import Testing

@Suite("EarliestAlarm: one alarm for the earliest of many stored times")
struct EarliestAlarmTests {
    private static let now: Int64 = 1_800_000_000_000

    @Test("A later time leaves the alarm where it is; an earlier one moves it, and only one wait stays armed")
    func keepsTheEarliest() {
        let timer = DeadlineTimer()
        defer { timer.close() }
        let alarm = EarliestAlarm(timer: timer) {}
        alarm.arm(at: Self.now + 60_000, now: Self.now)
        alarm.arm(at: Self.now + 120_000, now: Self.now)
        #expect(alarm.armedTime == Self.now + 60_000)
        alarm.arm(at: Self.now + 30_000, now: Self.now)
        #expect(alarm.armedTime == Self.now + 30_000)
        #expect(timer.armedCount == 1)
        alarm.clear()
        #expect(alarm.armedTime == nil && timer.armedCount == 0)
    }

    @Test("A time already past fires at once, once, and leaves the alarm free to be armed again")
    func firesOnce() async throws {
        let timer = DeadlineTimer()
        defer { timer.close() }
        let fired = Mutex(0)
        let alarm = EarliestAlarm(timer: timer) { fired.withLock { $0 += 1 } }
        alarm.arm(at: Self.now - 5_000, now: Self.now)
        try await waitUntil("the alarm to fire") { fired.withLock { $0 } == 1 }
        #expect(alarm.armedTime == nil)
        alarm.arm(at: Self.now + 60_000, now: Self.now)
        #expect(alarm.armedTime == Self.now + 60_000)
        #expect(fired.withLock { $0 } == 1)
    }

    @Test("Times at the ends of Int64 are armed without trapping")
    func extremes() {
        let timer = DeadlineTimer()
        defer { timer.close() }
        let alarm = EarliestAlarm(timer: timer) {}
        alarm.arm(at: .max, now: .min)
        #expect(alarm.armedTime == .max)
        alarm.clear()
        alarm.arm(at: .min, now: .max)
        #expect(alarm.armedTime == .min || alarm.armedTime == nil)
    }
}

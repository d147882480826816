import Foundation
import RivetKit

/// The arithmetic of schedule times, in milliseconds since 1970, checked: a delay or date out
/// of range is refused with `schedule.invalid_time` instead of trapping.
enum ScheduleTime {
    /// The wall clock now.
    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `now` plus `delay` (rounded up to a millisecond; a negative delay counts as none).
    static func runAt(after delay: Duration, now: Int64) throws(ActorError) -> Int64 {
        let (seconds, attoseconds) = delay.components
        guard seconds >= 0, attoseconds >= 0 else { return now }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let part = attoseconds / 1_000_000_000_000_000 + (attoseconds % 1_000_000_000_000_000 > 0 ? 1 : 0)
        let (total, overflow2) = whole.addingReportingOverflow(part)
        let (runAt, overflow3) = now.addingReportingOverflow(total)
        guard !overflow, !overflow2, !overflow3, runAt <= maxTime else {
            throw ActorError(.scheduleInvalidTime, "the delay is too long", metadata: ["delaySeconds": .integer(seconds)])
        }
        return runAt
    }

    /// A date in milliseconds since 1970.
    static func milliseconds(_ date: Date) throws(ActorError) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.up)
        guard value.isFinite, value >= -Double(maxTime), value <= Double(maxTime) else {
            throw ActorError(.scheduleInvalidTime, "the date is out of range")
        }
        return Int64(value)
    }

    /// The latest time accepted: about 285,000 years after 1970, far inside `Int64` and
    /// `Duration`'s ranges.
    static let maxTime: Int64 = 1 << 53
}

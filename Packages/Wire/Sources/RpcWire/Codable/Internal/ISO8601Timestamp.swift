/// Reads and writes RFC 3339 internet date-times (the ISO 8601 profile JSON APIs use), in
/// seconds since 1970-01-01T00:00:00Z, with proleptic Gregorian calendar arithmetic.
enum ISO8601Timestamp {
    /// Seconds per day, as a 64-bit integer: times in seconds reach 2.5e11 at the year 9999,
    /// past a 32-bit `Int` (watchOS on arm64_32), so they are computed in `Int64` everywhere.
    private static let secondsPerDay: Int64 = 86_400

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC, with any fraction of a second dropped (rounded toward
    /// the past); `nil` when the time is not finite or its year is outside 0000 to 9999.
    static func format(secondsSince1970 seconds: Double) -> String? {
        guard seconds.isFinite else { return nil }
        let whole = seconds.rounded(.down)
        // 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
        guard whole >= -62_167_219_200, whole <= 253_402_300_799 else { return nil }
        let (days, secondOfDay64) = floorDivision(Int64(whole), secondsPerDay)
        // Within the checked range, `days` is within ±3,000,000 and `secondOfDay` below 86,400.
        let secondOfDay = Int(secondOfDay64)
        let (year, month, day) = civilDate(daysSince1970: Int(days))
        var text = ""
        text.reserveCapacity(20)
        append(year, width: 4, to: &text)
        text += "-"
        append(month, width: 2, to: &text)
        text += "-"
        append(day, width: 2, to: &text)
        text += "T"
        append(secondOfDay / 3600, width: 2, to: &text)
        text += ":"
        append(secondOfDay / 60 % 60, width: 2, to: &text)
        text += ":"
        append(secondOfDay % 60, width: 2, to: &text)
        text += "Z"
        return text
    }

    /// The time `text` denotes, or `nil` when it is not an RFC 3339 date-time.
    ///
    /// Accepts `T` or `t` between date and time, an optional fraction of a second of any
    /// length, and `Z`, `z` or a `±HH:MM` offset.
    static func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0

        func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<width {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }

        func expect(_ options: UInt8...) -> Bool {
            guard index < bytes.count, options.contains(bytes[index]) else { return false }
            index += 1
            return true
        }

        guard let year = number(4), expect(UInt8(ascii: "-")),
              let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t")),
              let hour = number(2), expect(UInt8(ascii: ":")),
              let minute = number(2), expect(UInt8(ascii: ":")),
              let second = number(2)
        else {
            return nil
        }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(month, of: year),
              hour < 24, minute < 60, second < 60
        else {
            return nil
        }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
        }
        var offset = 0
        if expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offset = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2), expect(UInt8(ascii: ":")), let offsetMinutes = number(2),
                  offsetHours < 24, offsetMinutes < 60
            else {
                return nil
            }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        // `days` is within ±3,000,000 (years 0000 to 9999) and the rest within ±2 days.
        let seconds = Int64(days) * secondsPerDay + Int64(hour * 3600 + minute * 60 + second - offset)
        return Double(seconds) + fraction
    }

    /// Quotient and remainder with the quotient rounded toward negative infinity.
    private static func floorDivision<Integer: BinaryInteger>(_ dividend: Integer, _ divisor: Integer) -> (Integer, Integer) {
        var (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: divisor)
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }

    private static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    private static func daysInMonth(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given date. Years are counted from March so that the leap
    /// day falls at the end of a counted year; 400-year cycles have 146 097 days.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let (cycle, yearOfCycle) = floorDivision(marchYear, 400)
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
        // 719 468 days separate 0000-03-01 from 1970-01-01.
        return cycle * 146_097 + dayOfCycle - 719_468
    }

    /// The calendar date `days` after 1970-01-01; the inverse of ``daysSince1970(year:month:day:)``.
    private static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let (cycle, dayOfCycle) = floorDivision(days + 719_468, 146_097)
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = cycle * 400 + yearOfCycle + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func append(_ value: Int, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width {
            text += String(repeating: "0", count: width - digits.count)
        }
        text += digits
    }
}

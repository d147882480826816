/// Checks the decimal text of a Cap'n Web `bigint`.
enum CapnWebBigInt {
    /// The outcome of a check.
    enum Verdict: Equatable {
        /// An optional `-` followed by at most the allowed number of digits.
        case valid
        /// Empty, a lone `-`, or a character other than an ASCII digit.
        case malformed
        /// Well formed, but with more digits than allowed (the count excludes the sign).
        case tooLong(digits: Int)
    }

    /// Checks `text`: an optional `-`, then one or more ASCII digits, at most `maxDigits` of them.
    static func check(_ text: String, maxDigits: Int) -> Verdict {
        var digits = 0
        var isFirst = true
        for byte in text.utf8 {
            defer { isFirst = false }
            if isFirst, byte == UInt8(ascii: "-") {
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                return .malformed
            }
            digits += 1
        }
        if digits == 0 {
            return .malformed
        }
        return digits > maxDigits ? .tooLong(digits: digits) : .valid
    }
}

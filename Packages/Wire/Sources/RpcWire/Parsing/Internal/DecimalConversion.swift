/// Conversion of validated JSON number literals to correctly rounded doubles.
///
/// The reader handles the common case itself (at most 19 significant digits, a mantissa no
/// larger than 2^53 and a power of ten no larger than 10^22, where one exact IEEE operation
/// rounds correctly). Everything else comes here.
enum DecimalConversion {
    /// 10^0 through 10^22, every one exactly representable as a `Double`.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Literals up to this length go to the standard library's conversion unchanged.
    static let directConversionLimit = 512

    /// Significant digits kept when a literal is longer; any 768 digits decide the rounding of
    /// a double, so the rest only matter as "zero or not".
    static let keptDigits = 800

    /// A long literal's exponent stops growing once it reaches this (10^17): it then exceeds
    /// the length of any input, and at most 10^18 + 9 still leaves room in an `Int64` for the
    /// digit counts added to it.
    static let exponentSaturation: Int64 = 100_000_000_000_000_000

    /// `mantissa × 10^exponent` rounded once, when both factors are exact.
    ///
    /// - Returns: `nil` when the shortcut does not apply.
    @inline(__always)
    static func fastPath(mantissa: UInt64, exponent: Int64) -> Double? {
        guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let value = Double(mantissa)
        if exponent < 0 {
            return value / exactPowersOfTen[Int(truncatingIfNeeded: -exponent)]
        }
        return value * exactPowersOfTen[Int(truncatingIfNeeded: exponent)]
    }

    /// The correctly rounded value of a literal that already matched the JSON number grammar.
    ///
    /// Returns an infinity when the magnitude is too large for a double; the caller reports it.
    /// Runs in time linear in the literal's length, whatever its length.
    static func double(fromLiteral literal: UnsafeBufferPointer<UInt8>) -> Double {
        if literal.count <= directConversionLimit {
            // The standard library conversion rounds correctly and accepts JSON's number syntax.
            return Double(String(decoding: literal, as: UTF8.self)) ?? .nan
        }
        return double(fromLongLiteral: literal)
    }

    /// Shortens a long literal to a bounded number of significant digits plus a sticky digit
    /// and a bounded exponent, then converts that.
    private static func double(fromLongLiteral literal: UnsafeBufferPointer<UInt8>) -> Double {
        var position = 0
        let length = literal.count
        var negative = false
        if literal[0] == UInt8(ascii: "-") {
            negative = true
            position = 1
        }
        var digits: [UInt8] = []
        digits.reserveCapacity(keptDigits + 2)
        var droppedDigits = 0
        var droppedNonZero = false
        var fractionDigits = 0
        var inFraction = false
        while position < length {
            let byte = literal[position]
            if byte == UInt8(ascii: ".") {
                inFraction = true
                position += 1
                continue
            }
            guard byte &- UInt8(ascii: "0") < 10 else { break }
            if inFraction {
                fractionDigits += 1
            }
            if digits.isEmpty && byte == UInt8(ascii: "0") {
                position += 1
                continue
            }
            if digits.count < keptDigits {
                digits.append(byte)
            } else {
                droppedDigits += 1
                droppedNonZero = droppedNonZero || byte != UInt8(ascii: "0")
            }
            position += 1
        }
        // The exponent and the scale are 64-bit whatever the platform's `Int`: the exponent
        // saturates at 10^17, beyond the length of any literal (so a saturated exponent still
        // decides the result) and far from overflow once digit counts are added or taken away.
        var exponent: Int64 = 0
        if position < length {
            // An exponent marker: `e` or `E`, an optional sign, then digits.
            position += 1
            var exponentNegative = false
            if literal[position] == UInt8(ascii: "-") || literal[position] == UInt8(ascii: "+") {
                exponentNegative = literal[position] == UInt8(ascii: "-")
                position += 1
            }
            while position < length {
                if exponent < Self.exponentSaturation {
                    exponent = exponent * 10 + Int64(literal[position] &- UInt8(ascii: "0"))
                }
                position += 1
            }
            if exponentNegative {
                exponent = -exponent
            }
        }
        if digits.isEmpty {
            return negative ? -0.0 : 0.0
        }
        var scale = exponent - Int64(fractionDigits) + Int64(droppedDigits)
        if droppedNonZero {
            digits.append(UInt8(ascii: "1"))
            scale -= 1
        }
        // The value lies in [10^(magnitude-1), 10^magnitude).
        let magnitude = Int64(digits.count) + scale
        if magnitude > 310 {
            return negative ? -.infinity : .infinity
        }
        if magnitude < -330 {
            return negative ? -0.0 : 0.0
        }
        var text = negative ? "-" : ""
        text += String(decoding: digits, as: UTF8.self)
        text += "e"
        text += String(scale)
        return Double(text) ?? .nan
    }
}

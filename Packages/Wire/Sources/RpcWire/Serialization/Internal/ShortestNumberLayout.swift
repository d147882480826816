/// Receives the shortest round-trip digits of a `Double` from the standard library and
/// appends them to ``output`` in the layout of ECMAScript's `Number::toString`.
///
/// The standard library writes `Double` in a Swift layout (`100.0`, `1e-05`, `1.5e+20`) whose
/// digits are the shortest that read back as the same value. This type takes those digits
/// apart (sign, significant digits, decimal exponent) and lays them out again:
///
/// - integral values with at most 21 integer digits in full, without a fraction;
/// - other values of magnitude from 10^-7 to 10^21 in plain decimal notation;
/// - all others as one digit, an optional fraction, `e`, a sign and the exponent.
struct ShortestNumberLayout: TextOutputStream {
    /// The buffer the laid-out number is appended to.
    var output: [UInt8]

    /// The most significant digits a shortest round-trip `Double` has.
    private static let maximumDigits = 17

    init(output: [UInt8]) {
        self.output = output
    }

    /// Receives the digits as a string; used when the standard library does not hand them
    /// over as ASCII bytes.
    mutating func write(_ string: String) {
        var contiguous = string
        contiguous.withUTF8 { text in
            appendLayout(of: text)
        }
    }

    /// Receives the digits as ASCII bytes, without creating a string (a customisation point
    /// of `TextOutputStream` that the standard library's floating-point types call).
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        appendLayout(of: buffer)
    }

    /// Lays out a finite number written as `[-]digits[.digits][e[+-]digits]`.
    private mutating func appendLayout(of text: UnsafeBufferPointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumDigits + 8) { digits in
            var negative = false
            var digitCount = 0
            var pointPosition = -1
            var exponent = 0
            var index = 0
            if index < text.count, text[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            while index < text.count {
                let byte = text[index]
                index += 1
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if digitCount < digits.count {
                        digits[digitCount] = byte
                        digitCount += 1
                    }
                case UInt8(ascii: "."):
                    pointPosition = digitCount
                case UInt8(ascii: "e"), UInt8(ascii: "E"):
                    var exponentNegative = false
                    if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                        exponentNegative = text[index] == UInt8(ascii: "-")
                        index += 1
                    }
                    while index < text.count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") {
                        exponent = exponent * 10 + Int(text[index] - UInt8(ascii: "0"))
                        index += 1
                    }
                    if exponentNegative {
                        exponent = -exponent
                    }
                    index = text.count
                default:
                    break
                }
            }
            if pointPosition < 0 {
                pointPosition = digitCount
            }
            // Drop leading zeros (each moves the decimal point left) and trailing zeros.
            var first = 0
            while first < digitCount - 1, digits[first] == UInt8(ascii: "0") {
                first += 1
            }
            var end = digitCount
            while end > first + 1, digits[end - 1] == UInt8(ascii: "0") {
                end -= 1
            }
            let significant = UnsafeBufferPointer(rebasing: digits[first..<end])
            // The value is 0.d1d2…dk × 10^n.
            let k = significant.count
            let n = pointPosition - first + exponent
            if negative {
                output.append(UInt8(ascii: "-"))
            }
            if k <= n, n <= 21 {
                output.append(contentsOf: significant)
                output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: n - k))
            } else if n > 0, n <= 21 {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: significant[0..<n]))
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: UnsafeBufferPointer(rebasing: significant[n...]))
            } else if n > -6, n <= 0 {
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -n))
                output.append(contentsOf: significant)
            } else {
                output.append(significant[0])
                if k > 1 {
                    output.append(UInt8(ascii: "."))
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: significant[1...]))
                }
                output.append(UInt8(ascii: "e"))
                let power = n - 1
                output.append(power < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                var writer = JSONWriter(appendingTo: [])
                swap(&writer.bytes, &output)
                writer.writeInteger(Int64(power.magnitude))
                swap(&writer.bytes, &output)
            }
        }
    }
}

/// Writes compact JSON text for the benchmark inputs, independently of the code under test.
///
/// Separators are inserted automatically: call ``key(_:)`` before each member value and the
/// value methods in order.
///
/// ```swift
/// var builder = JSONTextBuilder()
/// builder.beginObject()
/// builder.key("id")
/// builder.integer(7)
/// builder.endObject()    // {"id":7}
/// ```
struct JSONTextBuilder {
    /// The text written so far, as UTF-8.
    private(set) var bytes: [UInt8]

    /// When positive, every n-th non-ASCII scalar in a string is written as `\u` escapes (a
    /// surrogate pair above U+FFFF) instead of raw UTF-8.
    var unicodeEscapeInterval = 0

    /// Whether `/` in strings is written as `\/`.
    var escapesSolidus = false

    private var nonASCIICount = 0
    private var containerHasElements: [Bool] = []
    private var afterKey = false

    /// Creates an empty builder.
    init(reservingCapacity capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func beginArray() {
        prepareValue()
        bytes.append(UInt8(ascii: "["))
        containerHasElements.append(false)
    }

    mutating func endArray() {
        containerHasElements.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func beginObject() {
        prepareValue()
        bytes.append(UInt8(ascii: "{"))
        containerHasElements.append(false)
    }

    mutating func endObject() {
        containerHasElements.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes a member name; the next value written is its value.
    mutating func key(_ name: String) {
        prepareValue()
        writeQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    mutating func string(_ value: String) {
        prepareValue()
        writeQuoted(value)
    }

    mutating func integer(_ value: Int) {
        prepareValue()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes a finite double in its shortest round-trip form.
    mutating func double(_ value: Double) {
        precondition(value.isFinite, "JSON holds finite numbers only")
        prepareValue()
        bytes.append(contentsOf: "\(value)".utf8)
    }

    mutating func bool(_ value: Bool) {
        prepareValue()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func null() {
        prepareValue()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes `value`, or `null` when it is `nil`.
    mutating func string(orNull value: String?) {
        if let value {
            string(value)
        } else {
            null()
        }
    }

    /// Writes `value`, or `null` when it is `nil`.
    mutating func integer(orNull value: Int?) {
        if let value {
            integer(value)
        } else {
            null()
        }
    }

    /// Writes an array of strings.
    mutating func strings(_ values: [String]) {
        beginArray()
        for value in values {
            string(value)
        }
        endArray()
    }

    /// Writes an array of integers.
    mutating func integers(_ values: [Int]) {
        beginArray()
        for value in values {
            integer(value)
        }
        endArray()
    }

    private mutating func prepareValue() {
        if afterKey {
            afterKey = false
            return
        }
        guard let last = containerHasElements.indices.last else { return }
        if containerHasElements[last] {
            bytes.append(UInt8(ascii: ","))
        }
        containerHasElements[last] = true
    }

    private mutating func writeQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"":
                bytes.append(contentsOf: #"\""#.utf8)
            case "\\":
                bytes.append(contentsOf: #"\\"#.utf8)
            case "\n":
                bytes.append(contentsOf: #"\n"#.utf8)
            case "\t":
                bytes.append(contentsOf: #"\t"#.utf8)
            case "\r":
                bytes.append(contentsOf: #"\r"#.utf8)
            case "/" where escapesSolidus:
                bytes.append(contentsOf: #"\/"#.utf8)
            case _ where scalar.value < 0x20:
                writeUnicodeEscapes(of: scalar)
            case _ where scalar.value >= 0x80:
                nonASCIICount += 1
                if unicodeEscapeInterval > 0, nonASCIICount.isMultiple(of: unicodeEscapeInterval) {
                    writeUnicodeEscapes(of: scalar)
                } else {
                    bytes.append(contentsOf: String(scalar).utf8)
                }
            default:
                bytes.append(UInt8(truncatingIfNeeded: scalar.value))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func writeUnicodeEscapes(of scalar: Unicode.Scalar) {
        for unit in String(scalar).utf16 {
            let hex = String(unit, radix: 16)
            bytes.append(contentsOf: #"\u"#.utf8)
            bytes.append(contentsOf: String(repeating: "0", count: 4 - hex.count).utf8)
            bytes.append(contentsOf: hex.utf8)
        }
    }
}

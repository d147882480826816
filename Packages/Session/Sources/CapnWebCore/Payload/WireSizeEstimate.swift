internal import RpcWire

/// A quick estimate of how many bytes a value takes on the wire, measured before the value is
/// turned into an expression and encoded, so that an answer which cannot be sent (or a result
/// the session would hold past a limit) is refused before it is built in full.
///
/// The estimate counts what the encoding must at least contain (each string's UTF-8 bytes and
/// quotes, each number's digits, the brackets, separators and type tags), so it stays at or a
/// little below the encoded size: escapes, fractional digits and exponents are not counted.
/// It walks the value once and stops as soon as the count passes `limit`, so measuring a huge
/// value against a small limit costs no more than the limit.
struct WireSizeEstimate {
    /// The count so far; past ``limit`` the walk stops.
    private(set) var total = 0
    let limit: Int

    /// Bytes counted for every value besides its encoding (0 to measure the wire).
    let perValue: Int

    /// Measures `value` against `limit`: the estimate, or a number above `limit` as soon as the
    /// value is known to be larger (never more than a little above it).
    static func measure(_ value: RpcPayload, limit: Int, perValue: Int = 0) -> Int {
        var estimate = WireSizeEstimate(limit: limit, perValue: perValue)
        estimate.add(value, depth: 0)
        return estimate.total
    }

    /// Measures a rejection as its value on the wire.
    static func measure(_ rejection: Rejection, limit: Int, perValue: Int = 0) -> Int {
        switch rejection {
        case .thrown(let value):
            return measure(value, limit: limit, perValue: perValue)
        case .failed:
            // A local failure's description, made small by construction.
            return 64
        }
    }

    /// Measures a settlement: its value, or its rejection's.
    static func measure(_ settlement: Settlement, limit: Int, perValue: Int = 0) -> Int {
        switch settlement {
        case .success(let value): measure(value, limit: limit, perValue: perValue)
        case .failure(let rejection): measure(rejection, limit: limit, perValue: perValue)
        }
    }

    /// Measures what a settlement holds in memory while it is kept: its encoding's size plus
    /// the inline size of each value (an array of a million numbers holds far more than its
    /// digits).
    static func measureHeld(_ settlement: Settlement, limit: Int) -> Int {
        measure(settlement, limit: limit, perValue: MemoryLayout<RpcPayload>.stride)
    }

    private init(limit: Int, perValue: Int) {
        self.limit = limit
        self.perValue = perValue
    }

    private var isOver: Bool { total > limit }

    /// Adds `count` bytes, saturating (a count cannot overflow however large the value).
    private mutating func count(_ count: Int) {
        total = total.addingReportingOverflow(count).overflow ? .max : total + count
    }

    private mutating func count(_ text: String) {
        count(text.utf8.count + 2)
    }

    /// Values nested deeper than this are counted as one byte: the serializer refuses them
    /// anyway (at ``RpcLimits/maxDepth``), and the walk needs no more stack than it does.
    private static let maxDepth = 1024

    private mutating func add(_ value: RpcPayload, depth: Int) {
        guard !isOver else { return }
        guard depth < Self.maxDepth else {
            count(1)
            return
        }
        if perValue > 0 { count(perValue) }
        switch value {
        case .null: count(4)
        case .bool(let flag): count(flag ? 4 : 5)
        case .integer(let integer): count(Self.digits(integer))
        case .double(let number): count(number.isFinite ? 1 : 5)
        case .string(let text): count(text)
        case .undefined: count(13)
        case .bigint(let digits): count(digits.utf8.count + 12)
        case .date: count(10)
        case .bytes(let bytes, _):
            // Base64 inside `["bytes","..."]`.
            count(bytes.count / 3 * 4 + 12)
        case .url(let href): count(href.utf8.count + 10)
        case .headers(let headers):
            count(13)
            for header in headers where !isOver {
                count(header.name.utf8.count + header.value.utf8.count + 7)
            }
        case .array(let elements):
            // A literal array travels wrapped: `[[...]]`; one byte per element stands for the
            // commas between them.
            count(3)
            for element in elements where !isOver {
                add(element, depth: depth + 1)
                count(1)
            }
        case .object(let members):
            // The braces, less the comma the last member does not have.
            count(1)
            for member in members where !isOver {
                count(member.key)
                count(2)
                add(member.value, depth: depth + 1)
            }
        case .error(let error):
            // `["error",` and the comma and bracket around name and message.
            count(11)
            count(error.name)
            count(error.message)
            if let stack = error.stack { count(stack) }
            for member in error.properties ?? [] where !isOver {
                count(member.key)
                add(member.value, depth: depth + 1)
            }
        case .request(let url, _, let body):
            count(url.utf8.count + 16)
            if let body { add(body, depth: depth + 1) }
        case .response(let body, _):
            count(16)
            add(body, depth: depth + 1)
        case .blob(let mimeType, _):
            count(mimeType.utf8.count + 16)
        case .stub, .readable, .writable:
            count(12)
        }
    }

    /// The number of characters of `value` in decimal, its sign included.
    static func digits(_ value: Int64) -> Int {
        var remaining = value.magnitude
        var count = value < 0 ? 2 : 1
        while remaining >= 10 {
            remaining /= 10
            count += 1
        }
        return count
    }
}

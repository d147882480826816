import CapnWebCore

/// JavaScript number semantics for the demo targets: payload numbers as `Double`, results
/// written as integers when they are whole (so `square(5)` answers `25`, as the reference does).
enum DemoNumber {
    /// The largest magnitude written as an integer: beyond it a `Double` loses whole numbers.
    private static let exactLimit = 9_007_199_254_740_992.0

    /// The number held by `payload`, or `nil` when it is not a number.
    static func value(_ payload: RpcPayload) -> Double? {
        switch payload {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// `value` as a payload: an integer when it is whole and exact, a double otherwise.
    static func payload(_ value: Double) -> RpcPayload {
        if value.isFinite, value.rounded() == value, abs(value) <= exactLimit {
            return .integer(Int64(value))
        }
        return .double(value)
    }

    /// How JavaScript would write `payload` inside a template string (`"User \(id)"`).
    static func text(_ payload: RpcPayload) -> String {
        switch payload {
        case .string(let text): return text
        case .integer(let value): return String(value)
        case .double(let value):
            if case .integer(let whole) = self.payload(value) { return String(whole) }
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
            return String(value)
        case .null: return "null"
        case .undefined: return "undefined"
        case .bool(let value): return String(value)
        default: return String(describing: payload)
        }
    }
}

import RpcWire

/// Which part of an index a query reads: equality on a prefix of the index's fields, in order,
/// then at most a lower and an upper bound on the next field.
///
/// ```swift
/// let recent = try context.query("messages").withIndex("by_channel_time") { $0.eq("channel", c).gte("at", start).lt("at", end) }.collect()
/// ```
///
/// Values are strings, numbers or booleans; the range is checked against the index when the
/// query runs (a field out of order, or a value of another kind, fails the query with
/// `TVX002`).
public struct TinyvexIndexRange: Sendable {
    /// One bound of the range on the field after the equalities.
    struct Bound: Sendable {
        let field: String
        let value: JSONValue
        let inclusive: Bool
    }

    var equalities: [(field: String, value: JSONValue)] = []
    var lower: Bound?
    var upper: Bound?
    /// The first misuse found while the range was built (a value that does not encode, a
    /// second bound on one side), reported when the query runs.
    var problem: String?

    init() {}

    /// Keeps the documents whose `field` equals `value`; fields of the index in order.
    public func eq(_ field: String, _ value: some Encodable) -> Self {
        var range = self
        if lower != nil || upper != nil {
            range.note("eq(\(field)) comes after a bound; equalities come first")
        }
        if let value = range.encode(value) { range.equalities.append((field, value)) }
        return range
    }

    /// Keeps the documents whose `field` is greater than `value`.
    public func gt(_ field: String, _ value: some Encodable) -> Self { bounding(lower: true, field, value, inclusive: false) }

    /// Keeps the documents whose `field` is greater than or equal to `value`.
    public func gte(_ field: String, _ value: some Encodable) -> Self { bounding(lower: true, field, value, inclusive: true) }

    /// Keeps the documents whose `field` is less than `value`.
    public func lt(_ field: String, _ value: some Encodable) -> Self { bounding(lower: false, field, value, inclusive: false) }

    /// Keeps the documents whose `field` is less than or equal to `value`.
    public func lte(_ field: String, _ value: some Encodable) -> Self { bounding(lower: false, field, value, inclusive: true) }

    private func bounding(lower isLower: Bool, _ field: String, _ value: some Encodable, inclusive: Bool) -> Self {
        var range = self
        guard let value = range.encode(value) else { return range }
        let bound = Bound(field: field, value: value, inclusive: inclusive)
        if isLower {
            if range.lower != nil { range.note("a second lower bound on \(field)") }
            range.lower = bound
        } else {
            if range.upper != nil { range.note("a second upper bound on \(field)") }
            range.upper = bound
        }
        return range
    }

    private mutating func encode(_ value: some Encodable) -> JSONValue? {
        do {
            return try JSONValueEncoder().encode(value)
        } catch {
            note("a value does not encode: \(error)")
            return nil
        }
    }

    private mutating func note(_ problem: String) {
        if self.problem == nil { self.problem = problem }
    }
}

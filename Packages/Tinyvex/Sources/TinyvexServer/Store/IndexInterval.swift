import RpcWire
import TinyvexProtocol

/// A part of a declared index a query read: the documents of `table` whose first fields equal
/// `prefix` and whose next field lies between `lower` and `upper`. A query's results are
/// exactly the documents it contains (SQLite narrows, this decides), and a committed write
/// re-runs the query only when a document it wrote contains, before or after, is in it.
struct IndexInterval: Sendable, Hashable {
    /// One end of the range on ``rangeField``.
    struct Bound: Sendable, Hashable {
        let key: IndexKey
        let inclusive: Bool
    }

    let table: String
    /// The index's fields, in order.
    let fields: [String]
    /// The values of the first `prefix.count` fields.
    let prefix: [IndexKey]
    let lower: Bound?
    let upper: Bound?

    /// The field after the prefix, which the bounds apply to.
    var rangeField: String? { prefix.count < fields.count ? fields[prefix.count] : nil }

    /// Whether equalities fix every field of the index, so that its documents come in creation
    /// order (by id), as a table's do.
    var isCreationOrdered: Bool { rangeField == nil }

    /// Checks `range` against `index`: equalities on the index's first fields in order, bounds
    /// on the next one, scalar values.
    init(table: String, index: TinyvexIndex, range: TinyvexIndexRange) throws(TinyvexServerError) {
        if let problem = range.problem {
            throw TinyvexServerError(.subscriptionRejected, "the range on index \(index.name) is not usable: \(problem)")
        }
        guard range.equalities.count <= index.fields.count else {
            throw TinyvexServerError(.subscriptionRejected, "index \(index.name) has \(index.fields.count) fields, the range compares \(range.equalities.count)")
        }
        var prefix: [IndexKey] = []
        for (position, equality) in range.equalities.enumerated() {
            guard equality.field == index.fields[position] else {
                throw TinyvexServerError(
                    .subscriptionRejected, "eq(\(equality.field)) on index \(index.name): field \(position + 1) of the index is \(index.fields[position])")
            }
            prefix.append(try Self.key(equality.value, index: index))
        }
        self.table = table
        self.fields = index.fields
        self.prefix = prefix
        let next = prefix.count < index.fields.count ? index.fields[prefix.count] : nil
        func bound(_ bound: TinyvexIndexRange.Bound?) throws(TinyvexServerError) -> Bound? {
            guard let bound else { return nil }
            guard bound.field == next else {
                throw TinyvexServerError(
                    .subscriptionRejected,
                    "a bound on \(bound.field) on index \(index.name): only the field after the equalities (\(next ?? "none")) takes one")
            }
            return Bound(key: try Self.key(bound.value, index: index), inclusive: bound.inclusive)
        }
        self.lower = try bound(range.lower)
        self.upper = try bound(range.upper)
    }

    private static func key(_ value: JSONValue, index: TinyvexIndex) throws(TinyvexServerError) -> IndexKey {
        guard let key = IndexKey(value) else {
            throw TinyvexServerError(.subscriptionRejected, "index \(index.name) compares strings, numbers and booleans, got \(value.kindName)")
        }
        return key
    }

    /// Whether the document with these fields is in the interval.
    func contains(_ document: JSONObject) -> Bool {
        for (field, key) in zip(fields, prefix) {
            guard let value = document[field], IndexKey(value) == key else { return false }
        }
        guard lower != nil || upper != nil, let rangeField else { return true }
        guard let value = document[rangeField], let key = IndexKey(value) else { return false }
        if let lower, !(lower.key < key || (lower.inclusive && lower.key == key)) { return false }
        if let upper, !(key < upper.key || (upper.inclusive && upper.key == key)) { return false }
        return true
    }
}

extension IndexKey {
    /// SQLite's order of the values an index holds: numbers before strings, numbers by value,
    /// strings by their UTF-8 bytes.
    static func < (lhs: IndexKey, rhs: IndexKey) -> Bool {
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)): a < b
        case (.number, .text): true
        case (.text, .number): false
        case (.text(let a), .text(let b)): a.utf8.lexicographicallyPrecedes(b.utf8)
        }
    }
}

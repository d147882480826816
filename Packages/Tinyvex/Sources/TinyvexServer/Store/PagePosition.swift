import GRDB
import RpcWire

/// Where a document sits in a paginated query's order: the values SQLite holds for the index
/// fields after the query's equalities (none without an index), then the document's id.
///
/// The values are SQLite's own (`json_extract` of the stored body, read back from the page's
/// rows), so a position compares exactly as SQLite orders the rows it seeks through.
struct PagePosition: Sendable, Hashable {
    /// One field's value as SQLite orders it: `NULL` (a missing field too) first, then numbers
    /// by value, then text by its UTF-8 bytes.
    enum Key: Sendable, Hashable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)

        /// The key SQLite makes of `value` (a document's field): booleans are 0 and 1, a string
        /// ends at its first U+0000 as `json_extract` ends it; `nil` for an array or object,
        /// whose order SQLite takes from its JSON text.
        init?(document value: JSONValue?) {
            switch value {
            case nil, .null?: self = .null
            case .bool(let flag)?: self = .integer(flag ? 1 : 0)
            case .integer(let number)?: self = .integer(number)
            case .double(let number)?: self = .real(number)
            case .string(let text)?: self = .text(Self.sqliteText(text))
            case .array?, .object?: return nil
            }
        }

        /// The key of a value SQLite returned; `nil` for a blob, which `json_extract` never gives.
        init?(database value: DatabaseValue) {
            switch value.storage {
            case .null: self = .null
            case .int64(let number): self = .integer(number)
            case .double(let number): self = .real(number)
            case .string(let text): self = .text(text)
            case .blob: return nil
            }
        }

        /// Text as SQLite keeps it from `json_extract`: up to the first U+0000.
        static func sqliteText(_ text: String) -> String {
            guard let nul = text.utf8.firstIndex(of: 0) else { return text }
            return String(decoding: text.utf8[..<nul], as: UTF8.self)
        }

        /// The key as the JSON of a cursor.
        var json: JSONValue {
            switch self {
            case .null: .null
            case .integer(let number): .integer(number)
            case .real(let number): .double(number)
            case .text(let text): .string(text)
            }
        }

        /// The key of a cursor's JSON value; `nil` for anything else than a scalar other than a
        /// boolean, or a number JSON cannot hold.
        init?(json: JSONValue) {
            switch json {
            case .null: self = .null
            case .integer(let number): self = .integer(number)
            case .double(let number) where number.isFinite: self = .real(number)
            case .string(let text): self = .text(Self.sqliteText(text))
            default: return nil
            }
        }

        /// The value bound for SQLite.
        var databaseValue: DatabaseValue {
            switch self {
            case .null: .null
            case .integer(let number): number.databaseValue
            case .real(let number): number.databaseValue
            case .text(let text): text.databaseValue
            }
        }

        /// How the key compares with `other` in SQLite's order.
        func compare(_ other: Key) -> Precedence {
            switch (self, other) {
            case (.null, .null): return .same
            case (.null, _): return .before
            case (_, .null): return .after
            case (.text(let a), .text(let b)):
                if a.utf8.elementsEqual(b.utf8) { return .same }
                return a.utf8.lexicographicallyPrecedes(b.utf8) ? .before : .after
            case (.text, _): return .after
            case (_, .text): return .before
            case (.integer(let a), .integer(let b)): return a == b ? .same : (a < b ? .before : .after)
            default:
                let (a, b) = (numeric, other.numeric)
                return a == b ? .same : (a < b ? .before : .after)
            }
        }

        private var numeric: Double {
            switch self {
            case .integer(let number): Double(number)
            case .real(let number): number
            case .null, .text: 0
            }
        }
    }

    /// The outcome of comparing two keys or positions.
    enum Precedence {
        case before, same, after
    }

    /// The values of the fields after the equalities, in index order.
    let keys: [Key]
    /// The document's id (creation order), which ends every index.
    let id: Int64

    /// Whether this position comes after `other` in a scan of the given direction.
    func isAfter(_ other: PagePosition, descending: Bool) -> Bool {
        var order = Precedence.same
        for (mine, theirs) in zip(keys, other.keys) {
            order = mine.compare(theirs)
            if order != .same { break }
        }
        if order == .same {
            order = id == other.id ? .same : (id < other.id ? .before : .after)
        }
        return descending ? order == .before : order == .after
    }

    /// The SQL condition (and its arguments) keeping the rows after this position in a scan
    /// of the given direction, over the field expressions `columns` then `id`. Every part is
    /// two-valued (a `NULL` never makes it unknown), so it may be negated.
    func afterSQL(columns: [String], descending: Bool) -> (sql: String, arguments: [DatabaseValue]) {
        var alternatives: [String] = []
        var arguments: [DatabaseValue] = []
        var equalPrefix: [String] = []
        var equalArguments: [DatabaseValue] = []
        for (column, key) in zip(columns, keys) {
            let (beyond, beyondArguments) = Self.beyond(column, key, descending: descending)
            alternatives.append("(" + (equalPrefix + [beyond]).joined(separator: " AND ") + ")")
            arguments += equalArguments + beyondArguments
            if case .null = key {
                equalPrefix.append("\(column) IS NULL")
            } else {
                equalPrefix.append("\(column) IS ?")
                equalArguments.append(key.databaseValue)
            }
        }
        alternatives.append("(" + (equalPrefix + ["id \(descending ? "<" : ">") ?"]).joined(separator: " AND ") + ")")
        arguments += equalArguments + [id.databaseValue]
        return ("(" + alternatives.joined(separator: " OR ") + ")", arguments)
    }

    /// The condition keeping the rows whose `column` comes strictly after `key` in the scan's
    /// direction.
    private static func beyond(_ column: String, _ key: Key, descending: Bool) -> (String, [DatabaseValue]) {
        switch (key, descending) {
        case (.null, false): ("\(column) IS NOT NULL", [])
        case (.null, true): ("0", [])
        case (_, false): ("(\(column) IS NOT NULL AND \(column) > ?)", [key.databaseValue])
        case (_, true): ("(\(column) IS NULL OR \(column) < ?)", [key.databaseValue])
        }
    }
}

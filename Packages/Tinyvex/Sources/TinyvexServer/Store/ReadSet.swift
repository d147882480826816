import RpcWire

/// What a query read: whole tables, single documents, field lookups (`field == value`),
/// intervals of declared indexes, and parts of an order (pages, and limited reads up to their
/// last document). A committed write re-runs a query only when it meets one of
/// these.
struct ReadSet: Sendable, Hashable {
    var tables: Set<String> = []
    var documents: Set<DocumentKey> = []
    var ranges: Set<IndexRange> = []
    var intervals: Set<IndexInterval> = []
    /// The parts of an order pages of paginated queries read, and reads that reached their
    /// limit (`take`, `first`) up to the last document they returned.
    var pages: Set<PageRange> = []

    struct DocumentKey: Sendable, Hashable {
        let table: String
        let id: Int64
    }

    struct IndexRange: Sendable, Hashable {
        let table: String
        let field: String
        let value: IndexKey
    }

    /// Whether any of the writes changes something this read set covers.
    func isTouched(by writes: [DocumentWrite]) -> Bool {
        writes.contains { write in
            if tables.contains(write.table) { return true }
            if documents.contains(DocumentKey(table: write.table, id: write.id)) { return true }
            for document in [write.before, write.after] {
                guard let document else { continue }
                for range in ranges where range.table == write.table {
                    if let value = document[range.field], IndexKey(value) == range.value { return true }
                }
                for interval in intervals where interval.table == write.table {
                    if interval.contains(document) { return true }
                }
                for page in pages where page.table == write.table {
                    if page.contains(document, id: write.id) { return true }
                }
            }
            return false
        }
    }
}

/// A scalar as SQLite compares it in an index lookup: numbers by value, booleans as 0 and 1.
enum IndexKey: Sendable, Hashable {
    case number(Double)
    case text(String)

    init?(_ value: JSONValue) {
        switch value {
        case .integer(let number): self = .number(Double(number))
        case .double(let number): self = .number(number)
        case .bool(let flag): self = .number(flag ? 1 : 0)
        case .string(let text): self = .text(text)
        case .null, .array, .object: return nil
        }
    }
}

/// One document a mutation inserted, replaced or deleted, with its fields before and after.
struct DocumentWrite: Sendable {
    let table: String
    let id: Int64
    let before: JSONObject?
    let after: JSONObject?
}

public import RpcWire
import TinyvexProtocol

/// What a query sees: the caller's identity and read access to the documents, on one snapshot.
///
/// Every read is recorded (a table, a document key or an index range) so the server re-runs
/// the query only after a write that meets what it read. Documents are JSON objects with their
/// `id` as the first member.
public class TinyvexQueryContext {
    /// The caller's identity from the auth hook, `nil` when unauthenticated.
    public let identity: String?
    let db: any TinyvexStoreTransaction
    var reads = ReadSet()
    private let deadline: ContinuousClock.Instant?
    /// The most items one page of a paginated query may ask for.
    let maxPageItems: Int
    /// The schema's declared indexes, by table, then by name.
    let indexes: [String: [String: TinyvexIndex]]

    init(
        db: any TinyvexStoreTransaction, identity: String?, deadline: ContinuousClock.Instant?, indexes: [String: [String: TinyvexIndex]] = [:],
        maxPageItems: Int = TinyvexServerConfiguration.defaultMaxPaginationItems
    ) {
        self.db = db
        self.maxPageItems = maxPageItems
        self.identity = identity
        self.deadline = deadline
        self.indexes = indexes
    }

    /// A query of the documents of `table`: in creation order, or through one of its declared
    /// indexes with ``TinyvexTableQuery/withIndex(_:_:)``; read when it is collected.
    ///
    /// ```swift
    /// let latest = try context.query("messages").withIndex("by_channel") { $0.eq("channel", c) }.order(.desc).take(50)
    /// ```
    public func query(_ table: String) -> TinyvexTableQuery {
        TinyvexTableQuery(context: self, table: table)
    }

    /// Reads what `query` asks for and records it in the read set: the index interval, or (with
    /// no index) the whole table; when the limit was reached, only the part of that order up
    /// to the last document returned (see ``limitedRead(table:interval:orderFields:descending:last:)``).
    func read(_ query: TinyvexTableQuery, limit: Int?) throws -> [JSONObject] {
        try checkDeadline()
        if let limit, limit < 0 {
            throw TinyvexServerError(.subscriptionRejected, "take(\(limit)): the count must not be negative")
        }
        if limit == 0 { return [] }
        let descending = query.direction == .desc
        guard let (name, range) = query.index else {
            let found = try db.documents(query.table, descending: descending, limit: limit)
            if let limit, found.count >= limit, let last = found.last,
                let part = Self.limitedRead(table: query.table, interval: nil, orderFields: [], descending: descending, last: last)
            {
                reads.pages.insert(part)
            } else {
                reads.tables.insert(query.table)
            }
            return found.map { Self.withID($0.0, $0.1) }
        }
        guard let index = indexes[query.table]?[name] else {
            throw TinyvexServerError(.subscriptionRejected, "the table \(query.table) declares no index \(name)")
        }
        let interval = try IndexInterval(table: query.table, index: index, range: range)
        let found = try db.documents(query.table, index: index, in: interval, descending: descending, limit: limit)
        let orderFields = Array(index.fields.dropFirst(interval.prefix.count))
        if let limit, found.count >= limit, let last = found.last,
            let part = Self.limitedRead(table: query.table, interval: interval, orderFields: orderFields, descending: descending, last: last)
        {
            reads.pages.insert(part)
        } else {
            reads.intervals.insert(interval)
        }
        return found.map { Self.withID($0.0, $0.1) }
    }

    /// The part of a query's order a read that reached its limit depends on: from the start of
    /// the range up to the last document returned, inclusive. Documents whose ordered fields
    /// equal the last one's count as inside whatever their id (only with no ordered field,
    /// where the id is the whole key, does the id bound it), so a write beyond it re-runs
    /// nothing and a write inside it, or at its edge, re-runs the query. `nil` when the last
    /// document's ordered field is an array or an object (SQLite orders those by their JSON
    /// text): then the whole range is recorded.
    static func limitedRead(
        table: String, interval: IndexInterval?, orderFields: [String], descending: Bool, last: (id: Int64, fields: JSONObject)
    ) -> PageRange? {
        var keys: [PagePosition.Key] = []
        for field in orderFields {
            guard let key = PagePosition.Key(document: last.fields[field]) else { return nil }
            keys.append(key)
        }
        // With equal keys, the id beyond every id in the scan's direction keeps them all in.
        let id = orderFields.isEmpty ? last.id : (descending ? Int64.min : Int64.max)
        return PageRange(
            table: table, interval: interval, orderFields: orderFields, descending: descending, start: nil,
            end: PagePosition(keys: keys, id: id))
    }

    /// The document `id` of `table`, or `nil` when there is none.
    public func get(_ table: String, id: Int64) throws -> JSONObject? {
        try checkDeadline()
        reads.documents.insert(ReadSet.DocumentKey(table: table, id: id))
        return try DocumentStore.document(table, id: id, db).map { Self.withID(id, $0) }
    }

    /// Every document of `table`, oldest first.
    public func all(_ table: String) throws -> [JSONObject] {
        try checkDeadline()
        reads.tables.insert(table)
        return try DocumentStore.documents(table, db).map { Self.withID($0.0, $0.1) }
    }

    /// The documents of `table` whose top-level `field` equals the scalar `value`, oldest first.
    ///
    /// - Throws: ``TinyvexServerError`` when `value` is not a scalar or `field` is not a plain
    ///   name (letters, digits, `_`).
    public func filter(_ table: String, where field: String, equals value: JSONValue) throws -> [JSONObject] {
        try checkDeadline()
        guard let key = IndexKey(value) else {
            throw TinyvexServerError(.subscriptionRejected, "an index lookup needs a string, number or boolean, got \(value.kindName)")
        }
        reads.ranges.insert(ReadSet.IndexRange(table: table, field: field, value: key))
        return try DocumentStore.documents(table, field: field, equals: key, db).map { Self.withID($0.0, $0.1) }
    }

    func checkDeadline() throws {
        if let deadline, ContinuousClock.now > deadline {
            throw TinyvexServerError(.timeout, "the query ran past its evaluation time limit")
        }
    }

    static func withID(_ id: Int64, _ fields: JSONObject) -> JSONObject {
        var document = JSONObject(minimumCapacity: fields.count + 1)
        document.updateValue(.integer(id), forKey: "id")
        for (key, value) in fields where key != "id" {
            document.updateValue(value, forKey: key)
        }
        return document
    }
}

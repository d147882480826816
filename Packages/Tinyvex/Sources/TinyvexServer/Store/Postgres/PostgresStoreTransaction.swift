import RpcWire
import TinyvexProtocol

/// One transaction of the PostgreSQL store (``PostgresDocumentStore``) on its session.
///
/// Reads narrow the rows in PostgreSQL (by table, by id, through an index's expressions) and
/// check every row again in Swift. A read in creation order (no index, or an index whose every
/// field the interval fixes) is ordered, bounded and limited by PostgreSQL, and refilled after
/// the last row seen when Swift's check drops some, so a page reads only its rows. Another index
/// read is ordered in Swift from the documents of its interval, with the same keys and order as
/// the SQLite store's (``PagePosition/Key``), so a cursor means the same on either store.
struct PostgresStoreTransaction: TinyvexStoreTransaction {
    let session: any PostgresSession
    let indexes: [String: [String: TinyvexIndex]]
    /// This server's name when several share the database.
    var node: String? = nil
    /// How many commits' writes stay in `tinyvex_commits` for servers that are behind.
    var commitRetention: Int64 = Int64(TinyvexPostgresDatabase.defaultCommitRetention)

    // MARK: Version

    func version() throws -> DocumentStore.StoredVersion {
        let rows = try session.run("SELECT value FROM tinyvex_meta WHERE key = 'version'", [])
        guard let row = rows.first, let value = row.first else { return .usable(0) }
        guard case .integer(let version) = value else {
            return .unusable("the stored version is \(value), not an integer")
        }
        guard (0...DocumentStore.maxVersion).contains(version) else {
            return .unusable("the stored version \(version) is outside 0...\(DocumentStore.maxVersion)")
        }
        return .usable(version)
    }

    func setVersion(_ version: Int64) throws {
        guard (0...DocumentStore.maxVersion).contains(version) else {
            throw TinyvexServerError(.mutationFailed, "the version \(version) is outside 0...\(DocumentStore.maxVersion) and is not stored")
        }
        _ = try session.run("UPDATE tinyvex_meta SET value = $1 WHERE key = 'version'", [.integer(version)])
    }

    // MARK: Documents

    func document(_ table: String, id: Int64) throws -> JSONObject? {
        let rows = try session.run("SELECT id, tbl, body FROM tinyvex_documents WHERE id = $1 AND tbl = $2", [.integer(id), Self.name(table)])
        return try documents(rows, table).first?.1
    }

    func documents(_ table: String) throws -> [(Int64, JSONObject)] {
        try documents(session.run("SELECT id, tbl, body FROM tinyvex_documents WHERE tbl = $1 ORDER BY id", [Self.name(table)]), table)
    }

    func documents(_ table: String, field: String, equals key: IndexKey) throws -> [(Int64, JSONObject)] {
        guard TinyvexIndex.isPlainName(field) else {
            throw TinyvexServerError(.mutationFailed, "an index field must be letters, digits and _: \(field)")
        }
        let (condition, bind): (String, PostgresValue) = switch key {
        case .number(let number): (PostgresIndexScan.number(field), .real(number))
        case .text(let text): (PostgresIndexScan.string(field), .text(try PostgresIndexScan.stringKey(text)))
        }
        let rows = try session.run(
            "SELECT id, tbl, body FROM tinyvex_documents WHERE tbl = $1 AND \(condition) = $2 ORDER BY id", [Self.name(table), bind])
        return try documents(rows, table).filter { _, body in body[field].flatMap(IndexKey.init) == key }
    }

    func documents(_ table: String, index: TinyvexIndex, in interval: IndexInterval, descending: Bool, limit: Int?) throws -> [(Int64, JSONObject)] {
        if interval.isCreationOrdered {
            return try creationOrdered(
                table, index: index, in: interval, descending: descending, after: nil, upTo: nil, limit: limit, check: {}
            ).map { ($0.id, $0.fields) }
        }
        let ordered = try ordered(table, index: index, in: interval, descending: descending)
        let found = ordered.map { ($0.id, $0.fields) }
        return limit.map { Array(found.prefix(max(0, $0))) } ?? found
    }

    func documents(_ table: String, descending: Bool, limit: Int?) throws -> [(Int64, JSONObject)] {
        let sql = "SELECT id, tbl, body FROM tinyvex_documents WHERE tbl = $1 ORDER BY id \(descending ? "DESC" : "ASC") LIMIT $2"
        let limitBind: PostgresValue = limit.map { .integer(Int64(max(0, $0))) } ?? .null
        return try documents(session.run(sql, [Self.name(table), limitBind]), table)
    }

    func pageRows(
        _ table: String, index: TinyvexIndex?, in interval: IndexInterval?, descending: Bool,
        after start: PagePosition?, upTo end: PagePosition?, limit: Int?, check: () throws -> Void
    ) throws -> [DocumentStore.PageRow] {
        // In creation order a row's position has no keys, so only ids compare with a cursor's.
        guard let index, let interval, !interval.isCreationOrdered else {
            return try creationOrdered(
                table, index: index, in: interval, descending: descending, after: start, upTo: end, limit: limit, check: check)
        }
        try check()
        let rows = try ordered(table, index: index, in: interval, descending: descending)
        var found: [DocumentStore.PageRow] = []
        for row in rows {
            if let start, !row.position.isAfter(start, descending: descending) { continue }
            if let end, row.position.isAfter(end, descending: descending) { break }
            found.append(row)
            if let limit, found.count >= limit { break }
        }
        return found
    }

    func insert(_ table: String, _ fields: JSONObject) throws -> Int64 {
        let rows = try session.run(
            "INSERT INTO tinyvex_documents (tbl, body) VALUES ($1, $2) RETURNING id", [Self.name(table), .text(try Self.jsonText(.object(fields)))])
        guard case .integer(let id)? = rows.first?.first else {
            throw TinyvexServerError(.mutationFailed, "the database gave no id for a new document")
        }
        return id
    }

    func replace(_ table: String, id: Int64, _ fields: JSONObject) throws {
        _ = try session.run(
            "UPDATE tinyvex_documents SET body = $1 WHERE tbl = $2 AND id = $3",
            [.text(try Self.jsonText(.object(fields))), Self.name(table), .integer(id)])
    }

    func delete(_ table: String, id: Int64) throws {
        _ = try session.run("DELETE FROM tinyvex_documents WHERE tbl = $1 AND id = $2", [Self.name(table), .integer(id)])
    }

    func recordCommit(version: Int64, writes: [DocumentWrite]) throws {
        guard let node else { return }
        let encoded: [JSONValue] = writes.map { write in
            .array([.string(write.table), .integer(write.id), write.before.map(JSONValue.object) ?? .null, write.after.map(JSONValue.object) ?? .null])
        }
        _ = try session.run(
            "INSERT INTO tinyvex_commits (version, node, writes) VALUES ($1, $2, $3)", [.integer(version), .text(node), .text(try Self.jsonText(.array(encoded)))])
        _ = try session.run("DELETE FROM tinyvex_commits WHERE version <= $1", [.integer(version - commitRetention)])
        // Sent when the transaction commits.
        _ = try session.run("SELECT pg_notify($1, $2)", [.text(TinyvexPostgresDatabase.commitChannel), .text(String(version))])
    }

    func remoteCommits(after version: Int64) throws -> [(version: Int64, writes: [DocumentWrite])] {
        guard let node else { return [] }
        let rows = try session.run("SELECT version, node, writes FROM tinyvex_commits WHERE version > $1 ORDER BY version", [.integer(version)])
        var commits: [(version: Int64, writes: [DocumentWrite])] = []
        for row in rows {
            guard row.count == 3, case .integer(let committed) = row[0], case .text(let author) = row[1], case .text(let text) = row[2] else {
                throw TinyvexServerError(.mutationFailed, "a stored commit cannot be read")
            }
            guard author != node else {
                commits.append((committed, []))
                continue
            }
            guard case .array(let entries) = try JSONParser().parse(text) else {
                throw TinyvexServerError(.mutationFailed, "the writes of commit \(committed) cannot be read")
            }
            var writes: [DocumentWrite] = []
            for entry in entries {
                guard case .array(let parts) = entry, parts.count == 4, case .string(let table) = parts[0], case .integer(let id) = parts[1] else {
                    throw TinyvexServerError(.mutationFailed, "the writes of commit \(committed) cannot be read")
                }
                let before: JSONObject? = if case .object(let fields) = parts[2] { fields } else { nil }
                let after: JSONObject? = if case .object(let fields) = parts[3] { fields } else { nil }
                writes.append(DocumentWrite(table: table, id: id, before: before, after: after))
            }
            commits.append((committed, writes))
        }
        return commits
    }

    func inSavepoint(_ body: () throws -> Void) throws {
        _ = try session.run("SAVEPOINT tinyvex_mutation", [])
        do {
            try body()
        } catch {
            _ = try session.run("ROLLBACK TO SAVEPOINT tinyvex_mutation", [])
            _ = try session.run("RELEASE SAVEPOINT tinyvex_mutation", [])
            throw error
        }
        _ = try session.run("RELEASE SAVEPOINT tinyvex_mutation", [])
    }

    // MARK: Mutation results

    func storedResult(_ key: String) throws -> (JSONValue, Int64)? {
        let rows = try session.run("SELECT result, version FROM tinyvex_requests WHERE request_id = $1", [.text(key)])
        guard let row = rows.first else { return nil }
        guard row.count == 2, case .text(let text) = row[0], case .integer(let version) = row[1], (0...DocumentStore.maxVersion).contains(version) else {
            throw TinyvexServerError(.mutationFailed, "the stored result of this requestId cannot be read")
        }
        return (try JSONParser().parse(text), version)
    }

    func storeResult(_ key: String, _ result: JSONValue, version: Int64, retention: Int, retentionBytes: Int, storedBytes: Int) throws -> Int {
        guard (0...DocumentStore.maxVersion).contains(version) else {
            throw TinyvexServerError(.mutationFailed, "the version \(version) is outside 0...\(DocumentStore.maxVersion) and is not stored")
        }
        let text = try Self.jsonText(result)
        _ = try session.run("INSERT INTO tinyvex_requests (request_id, result, version) VALUES ($1, $2, $3)", [.text(key), .text(text), .integer(version)])
        _ = try session.run(
            "DELETE FROM tinyvex_requests WHERE seqno <= (SELECT MAX(seqno) FROM tinyvex_requests) - $1", [.integer(Int64(max(1, retention)))])
        var total = DocumentStore.saturatingAdd(storedBytes, DocumentStore.saturatingAdd(key.utf8.count, text.utf8.count))
        if total > retentionBytes {
            // Oldest first, until the rest fits; the row just stored stays.
            total = try resultBytes()
            let rows = try session.run(
                "SELECT seqno, (octet_length(request_id) + octet_length(result))::bigint FROM tinyvex_requests ORDER BY seqno", [])
            var last: Int64?
            for row in rows.dropLast() where total > retentionBytes {
                guard row.count == 2, case .integer(let seqno) = row[0] else { continue }
                if case .integer(let bytes) = row[1], let bytes = Int(exactly: bytes) {
                    total = max(0, total - bytes)
                }
                last = seqno
            }
            if let last {
                _ = try session.run("DELETE FROM tinyvex_requests WHERE seqno <= $1", [.integer(last)])
            }
        }
        return total
    }

    func resultBytes() throws -> Int {
        let rows = try session.run("SELECT SUM(octet_length(request_id) + octet_length(result))::bigint FROM tinyvex_requests", [])
        guard case .integer(let total)? = rows.first?.first else { return 0 }
        return Int(clamping: total)
    }

    // MARK: Scheduled functions

    func insertScheduled(kind: ScheduledStore.Kind, name: String, args: JSONValue, runAt: Int64, limit: Int) throws -> Int64? {
        guard try scheduledCount() < limit else { return nil }
        // The call is JSON text, which escapes U+0000.
        let call = try Self.jsonText(.array([.string(kind.rawValue), .string(name), args]))
        let rows = try session.run("INSERT INTO tinyvex_scheduled (run_at, call) VALUES ($1, $2) RETURNING id", [.integer(runAt), .text(call)])
        guard case .integer(let id)? = rows.first?.first else {
            throw TinyvexServerError(.mutationFailed, "the database gave no id for a scheduled function")
        }
        return id
    }

    func removeScheduled(_ id: Int64) throws -> Bool {
        try !session.run("DELETE FROM tinyvex_scheduled WHERE id = $1 RETURNING id", [.integer(id)]).isEmpty
    }

    func dueScheduled(now: Int64, limit: Int, report: (String) -> Void) throws -> [ScheduledStore.Job] {
        let rows = try session.run(
            "SELECT id, run_at, call FROM tinyvex_scheduled WHERE run_at <= $1 ORDER BY run_at, id LIMIT $2",
            [.integer(now), .integer(Int64(max(0, limit)))])
        var jobs: [ScheduledStore.Job] = []
        for row in rows {
            guard row.count == 3, case .integer(let id) = row[0] else { continue }
            guard case .integer(let runAt) = row[1], case .text(let text) = row[2],
                case .array(let call)? = try? JSONParser().parse(text), call.count == 3,
                case .string(let kindName) = call[0], let kind = ScheduledStore.Kind(rawValue: kindName), case .string(let name) = call[1]
            else {
                report("tinyvex: the scheduled function \(id) cannot be read back and is removed")
                _ = try removeScheduled(id)
                continue
            }
            jobs.append(ScheduledStore.Job(id: id, kind: kind, name: name, args: call[2], runAt: runAt))
        }
        return jobs
    }

    func nextScheduledRunAt() throws -> Int64? {
        guard case .integer(let runAt)? = try session.run("SELECT MIN(run_at) FROM tinyvex_scheduled", []).first?.first else { return nil }
        return runAt
    }

    func scheduledCount() throws -> Int {
        guard case .integer(let count)? = try session.run("SELECT COUNT(*) FROM tinyvex_scheduled", []).first?.first else { return 0 }
        return Int(clamping: count)
    }

    // MARK: Rows

    /// How many rows a creation-order read without a limit asks PostgreSQL for at a time.
    static let creationOrderBatch = 256

    /// The documents of `table` (in `interval` of `index`, when given, which fixes every field
    /// of it) in creation order, `descending` or not, after `start` and up to `end` (inclusive),
    /// at most `limit` (all when `nil`). PostgreSQL orders, bounds and limits the rows; each is
    /// checked again in Swift, and the next rows are read after the last one seen, so a limit is
    /// still filled. `check` runs before each read (the time limit).
    private func creationOrdered(
        _ table: String, index: TinyvexIndex?, in interval: IndexInterval?, descending: Bool,
        after start: PagePosition?, upTo end: PagePosition?, limit: Int?, check: () throws -> Void
    ) throws -> [DocumentStore.PageRow] {
        var conditions = ["tbl = $1"]
        var binds: [PostgresValue] = [Self.name(table)]
        if let index, let interval {
            let (narrowing, narrowingBinds) = try PostgresIndexScan(index: index, table: table).conditions(interval)
            conditions += narrowing
            binds += narrowingBinds
        }
        if let end {
            binds.append(.integer(end.id))
            conditions.append("id \(descending ? ">=" : "<=") $\(binds.count)")
        }
        var found: [DocumentStore.PageRow] = []
        var last = start?.id
        while true {
            try check()
            let batch = limit.map { max(1, $0 - found.count) } ?? Self.creationOrderBatch
            var bounded = conditions
            var arguments = binds
            if let last {
                arguments.append(.integer(last))
                bounded.append("id \(descending ? "<" : ">") $\(arguments.count)")
            }
            arguments.append(.integer(Int64(batch)))
            let sql = "SELECT id, tbl, body FROM tinyvex_documents WHERE \(bounded.joined(separator: " AND ")) "
                + "ORDER BY id \(descending ? "DESC" : "ASC") LIMIT $\(arguments.count)"
            let rows = try session.run(sql, arguments)
            if case .integer(let id)? = rows.last?.first { last = id }
            for (id, fields) in try documents(rows, table) where interval?.contains(fields) ?? true {
                found.append(DocumentStore.PageRow(id: id, fields: fields, position: PagePosition(keys: [], id: id)))
            }
            if let limit, found.count >= limit { break }
            if rows.count < batch { break }
        }
        return limit.map { Array(found.prefix(max(0, $0))) } ?? found
    }

    /// The documents of `table` in `interval` of `index`, in index order, with their positions.
    private func ordered(_ table: String, index: TinyvexIndex, in interval: IndexInterval, descending: Bool) throws -> [DocumentStore.PageRow] {
        let (conditions, binds) = try PostgresIndexScan(index: index, table: table).conditions(interval)
        let sql = "SELECT id, tbl, body FROM tinyvex_documents WHERE " + (["tbl = $1"] + conditions).joined(separator: " AND ")
        let orderFields = index.fields.dropFirst(interval.prefix.count)
        var rows: [DocumentStore.PageRow] = []
        for (id, fields) in try documents(session.run(sql, [Self.name(table)] + binds), table) where interval.contains(fields) {
            let keys = try orderFields.map { field in
                try PagePosition.Key(document: fields[field]) ?? .text(Self.jsonText(fields[field] ?? .null))
            }
            rows.append(DocumentStore.PageRow(id: id, fields: fields, position: PagePosition(keys: keys, id: id)))
        }
        // Ascending: a row comes before another that is after it.
        rows.sort { a, b in b.position.isAfter(a.position, descending: descending) }
        return rows
    }

    /// The rows' ids and bodies, those of `table` only (compared byte for byte).
    private func documents(_ rows: [[PostgresValue]], _ table: String) throws -> [(Int64, JSONObject)] {
        let name = Array(table.utf8)
        var found: [(Int64, JSONObject)] = []
        for row in rows {
            guard row.count >= 3, case .bytes(let stored) = row[1], stored == name else { continue }
            guard case .integer(let id) = row[0], case .text(let body) = row[2], case .object(let fields) = try JSONParser().parse(body) else {
                throw TinyvexServerError(.mutationFailed, "a stored document is not an object")
            }
            found.append((id, fields))
        }
        return found
    }

    /// A table name as the bytes stored for it.
    private static func name(_ table: String) -> PostgresValue {
        .bytes(Array(table.utf8))
    }

    private static func jsonText(_ value: JSONValue) throws -> String {
        String(decoding: try JSONSerializer().serialize(value), as: UTF8.self)
    }
}

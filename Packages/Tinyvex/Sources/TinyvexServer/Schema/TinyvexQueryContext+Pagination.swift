import RpcWire
import TinyvexProtocol

extension TinyvexQueryContext {
    /// Reads one page of `query` as `options` says and records the part of the order it read.
    ///
    /// A page without `endCursor` reads `numItems` items (and looks at one more, to tell
    /// whether it is done); a pinned one reads everything after `cursor` up to `endCursor`,
    /// however many items that is now, so that its boundaries do not move.
    func paginate(_ query: TinyvexTableQuery, _ options: TinyvexPaginationOptions) throws -> TinyvexPaginationResult<JSONObject> {
        try checkDeadline()
        // Below Int.max too, so that one more than asked can be read.
        guard options.numItems >= 1, options.numItems <= maxPageItems, options.numItems < Int.max else {
            throw TinyvexServerError(
                .subscriptionRejected, "paginationOpts.numItems must be between 1 and \(maxPageItems), got \(options.numItems)",
                details: ["reason": "invalidNumItems", "max": .integer(Int64(maxPageItems))])
        }
        let descending = query.direction == .desc
        var index: TinyvexIndex?
        var interval: IndexInterval?
        var orderFields: [String] = []
        var shape: [JSONValue] = [.string(query.table), .string(descending ? "desc" : "asc")]
        if let (name, range) = query.index {
            guard let declared = indexes[query.table]?[name] else {
                throw TinyvexServerError(.subscriptionRejected, "the table \(query.table) declares no index \(name)")
            }
            let read = try IndexInterval(table: query.table, index: declared, range: range)
            index = declared
            interval = read
            orderFields = Array(declared.fields.dropFirst(read.prefix.count))
            shape += [.string(name), .array(declared.fields.map(JSONValue.string)), .array(read.prefix.map(Self.json))]
            for bound in [read.lower, read.upper] {
                shape.append(bound.map { .array([Self.json($0.key), .bool($0.inclusive)]) } ?? .null)
            }
        }
        let queryName = Self.shapeName(shape)
        let start = try options.cursor.map { text throws(TinyvexServerError) in
            try PageCursor(text, query: queryName, keyCount: orderFields.count)
        }
        let end = try options.endCursor.map { text throws(TinyvexServerError) in
            try PageCursor(text, query: queryName, keyCount: orderFields.count)
        }
        if start == .end {
            // Nothing comes after the end of the range: an empty last page, which reads nothing.
            return TinyvexPaginationResult(page: [], isDone: true, continueCursor: PageCursor.end.encoded(query: queryName))
        }
        let startPosition: PagePosition? = if case .position(let position)? = start { position } else { nil }
        let endPosition: PagePosition? = if case .position(let position)? = end { position } else { nil }
        // Unpinned, one more than asked says whether the range goes on.
        let limit = end == nil ? options.numItems + 1 : nil
        let rows = try DocumentStore.pageRows(
            query.table, index: index, in: interval, descending: descending, after: startPosition, upTo: endPosition, limit: limit,
            check: { try checkDeadline() }, db)
        let page: ArraySlice<DocumentStore.PageRow>
        let isDone: Bool
        let continueCursor: PageCursor
        let readEnd: PagePosition?
        switch end {
        case nil where rows.count > options.numItems:
            page = rows.prefix(options.numItems)
            isDone = false
            continueCursor = .position(rows[options.numItems - 1].position)
            readEnd = rows[options.numItems].position
        case nil, .end?:
            page = rows[...]
            isDone = true
            continueCursor = .end
            readEnd = nil
        case .position(let position)?:
            page = rows[...]
            isDone = false
            continueCursor = .position(position)
            readEnd = position
        }
        reads.pages.insert(
            PageRange(table: query.table, interval: interval, orderFields: orderFields, descending: descending, start: startPosition, end: readEnd))
        return TinyvexPaginationResult(
            page: page.map { Self.withID($0.id, $0.fields) }, isDone: isDone, continueCursor: continueCursor.encoded(query: queryName))
    }

    private static func json(_ key: IndexKey) -> JSONValue {
        switch key {
        case .number(let number): .double(number)
        case .text(let text): .string(text)
        }
    }

    /// A short stable name of a query's shape (64-bit FNV-1a of its canonical JSON, in hex),
    /// the same in every run of the server, so that cursors outlive a restart.
    private static func shapeName(_ shape: [JSONValue]) -> String {
        let text = TinyvexCanonicalJSON.text(.array(shape)) ?? ""
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

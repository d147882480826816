import RpcWire

/// The PostgreSQL side of a declared index: an expression index on the table name and, for each
/// field, its value as a number (numbers, and booleans as 0 and 1) and as the JSON text of a
/// string, and the conditions that narrow a read of an ``IndexInterval`` through it.
///
/// PostgreSQL's JSON functions refuse a string holding `\u0000`, so the expressions read the
/// body with that escape replaced by `\uFFFD`, and a query's string is replaced the same way:
/// the index may then hold two different strings as one value, never one string as two, so it
/// narrows to a superset and every row is checked exactly in Swift.
struct PostgresIndexScan {
    let index: TinyvexIndex
    let table: String

    /// The body as JSON the index expressions read.
    private static let json = #"replace(body, '\u0000', '\uFFFD')::json"#

    /// The number expression of `field` (names are letters, digits and `_`).
    static func number(_ field: String) -> String {
        """
        (CASE json_typeof(\(json) -> '\(field)') WHEN 'number' THEN (\(json) ->> '\(field)')::float8 \
        WHEN 'boolean' THEN CASE WHEN (\(json) ->> '\(field)') = 'true' THEN 1::float8 ELSE 0::float8 END END)
        """
    }

    /// The string expression of `field`: the JSON text of a string value, `NULL` otherwise.
    static func string(_ field: String) -> String {
        "(CASE WHEN json_typeof(\(json) -> '\(field)') = 'string' THEN (\(json) -> '\(field)')::text END)"
    }

    /// The text a query's string is compared as: its JSON text, with `\u0000` replaced as in
    /// the index.
    static func stringKey(_ text: String) throws -> String {
        let encoded = String(decoding: try JSONSerializer().serialize(.string(text)), as: UTF8.self)
        return encoded.replacing(#"\u0000"#, with: #"\uFFFD"#)
    }

    /// The PostgreSQL name of the index (at most 63 bytes, lowercase): a hash of the table, the
    /// index and its fields, each with its length, so no two declarations share one.
    var sqlName: String {
        let parts = [table, index.name] + index.fields
        let text = parts.map { "\($0.utf8.count)_\($0)" }.joined(separator: "_")
        // FNV-1a, 64 bits: stable across runs (Swift's Hasher is seeded per process).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let readable = String(String(table.prefix(16)) + "_" + String(index.name.prefix(16)))
        // Lowercase, as PostgreSQL keeps an unquoted name (the hash tells cases apart).
        return "tinyvex_index_\(readable)_\(String(hash, radix: 16))".lowercased()
    }

    /// `CREATE INDEX` for the declaration; names were checked to be plain.
    var createSQL: String {
        let columns = ["tbl"] + index.fields.flatMap { [Self.number($0), Self.string($0)] } + ["id"]
        return "CREATE INDEX IF NOT EXISTS \(sqlName) ON tinyvex_documents (\(columns.joined(separator: ", ")))"
    }

    /// The conditions (after the table's, whose bind is `$1`) that narrow the rows to a superset
    /// of `interval`, and their binds (`$2`…).
    func conditions(_ interval: IndexInterval) throws -> (conditions: [String], binds: [PostgresValue]) {
        var conditions: [String] = []
        var binds: [PostgresValue] = []
        func bind(_ value: PostgresValue) -> String {
            binds.append(value)
            return "$\(binds.count + 1)"
        }
        for (field, key) in zip(index.fields, interval.prefix) {
            switch key {
            case .number(let number): conditions.append("\(Self.number(field)) = \(bind(.real(number)))")
            case .text(let text): conditions.append("\(Self.string(field)) = \(bind(.text(try Self.stringKey(text))))")
            }
        }
        if let field = interval.rangeField {
            // Numbers come before strings; strings are narrowed to strings only (their JSON
            // text does not sort as their bytes do).
            if let lower = interval.lower {
                switch lower.key {
                case .number(let number):
                    conditions.append(
                        "(\(Self.number(field)) \(lower.inclusive ? ">=" : ">") \(bind(.real(number))) OR \(Self.string(field)) IS NOT NULL)")
                case .text:
                    conditions.append("\(Self.string(field)) IS NOT NULL")
                }
            }
            if let upper = interval.upper {
                switch upper.key {
                case .number(let number):
                    conditions.append("\(Self.number(field)) \(upper.inclusive ? "<=" : "<") \(bind(.real(number)))")
                case .text:
                    conditions.append("(\(Self.number(field)) IS NOT NULL OR \(Self.string(field)) IS NOT NULL)")
                }
            }
        }
        return (conditions, binds)
    }
}

/// An index a schema declares on a table: documents ordered by the values of `fields` (top-level
/// members, in that order), then by creation order.
///
/// Backed by an SQLite index on the fields' JSON values, so a query through it seeks instead of
/// scanning. Values order as SQLite compares them: missing or `null` first, then numbers (by
/// value, booleans as 0 and 1), then strings (by their UTF-8 bytes).
///
/// ```swift
/// schema.table("messages", indexes: [TinyvexIndex("by_channel", on: ["channel"])])
/// ```
public struct TinyvexIndex: Sendable, Hashable {
    /// The index's name, unique within its table: letters, digits and `_`.
    public let name: String
    /// The indexed fields, in order: top-level member names of letters, digits and `_`.
    public let fields: [String]

    /// Declares an index `name` on `fields`.
    public init(_ name: String, on fields: [String]) {
        self.name = name
        self.fields = fields
    }

    /// Whether `text` is a name SQL may hold unquoted: letters, digits and `_`, not empty.
    static func isPlainName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
    }

    /// Checks the declared indexes (by table, then name) before a store makes them: tables,
    /// indexes and fields must be plain names, and an index has at least one field.
    ///
    /// - Throws: ``TinyvexServerError`` naming the first index that breaks the rule.
    static func validate(_ indexes: [String: [String: TinyvexIndex]]) throws(TinyvexServerError) {
        for (table, declared) in indexes {
            for index in declared.values {
                guard isPlainName(table), isPlainName(index.name), !index.fields.isEmpty, index.fields.allSatisfy(isPlainName)
                else {
                    throw TinyvexServerError(
                        .subscriptionRejected,
                        "index \(index.name) on \(table): the table, the index and its fields (at least one) must be named with letters, digits and _")
                }
            }
        }
    }
}

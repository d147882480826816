/// A value bound to, or read from, a PostgreSQL statement of the PostgreSQL store.
package enum PostgresValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A `bigint`.
    case integer(Int64)
    /// A `double precision`.
    case real(Double)
    /// A `text` (never holding NUL, which PostgreSQL's text refuses).
    case text(String)
    /// A `bytea`: the UTF-8 bytes of a text that may hold NUL, compared byte for byte.
    case bytes([UInt8])
}

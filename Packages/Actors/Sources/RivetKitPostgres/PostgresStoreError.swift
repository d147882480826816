/// A PostgreSQL store that cannot be used, and why: a database another server serves already.
public struct PostgresStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

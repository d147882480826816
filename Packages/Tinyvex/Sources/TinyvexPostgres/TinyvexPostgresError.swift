/// A PostgreSQL database that cannot be used for a Tinyvex server, and why: another server
/// holds it.
public struct TinyvexPostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

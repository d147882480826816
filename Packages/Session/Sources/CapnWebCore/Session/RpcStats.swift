/// The sizes of a session's tables, both counting the main entry: `{imports: 1, exports: 1}`
/// once everything has been released.
public struct RpcStats: Sendable, Hashable, CustomStringConvertible {
    /// Entries of the peer this side holds.
    public var imports: Int
    /// Entries of this side the peer holds.
    public var exports: Int

    /// Creates stats.
    public init(imports: Int, exports: Int) {
        self.imports = imports
        self.exports = exports
    }

    /// `{imports: N, exports: M}`.
    public var description: String { "{imports: \(imports), exports: \(exports)}" }
}

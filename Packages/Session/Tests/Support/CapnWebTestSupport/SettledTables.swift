public import CapnWebCore

/// The table sizes each peer of a test must settle at once the test's body has run: the
/// client's (every client session a test opens) and the server's (every server session).
///
/// Nearly every test expects ``clean``: only the main entries remain, so every ref, promise,
/// stream and call the test made was released on both sides. A test that deliberately ends with
/// other counts (a leak it demonstrates, a table it tears down) states them here, so the check
/// is never skipped silently.
public struct SettledTables: Sendable, Equatable {
    /// What each client session's tables must settle at.
    public var client: RpcStats
    /// What each server session's tables must settle at.
    public var server: RpcStats

    /// Expects `client` on the client side and `server` on the server side.
    public init(client: RpcStats, server: RpcStats) {
        self.client = client
        self.server = server
    }

    /// Both sides hold only their main entries: `{imports: 1, exports: 1}`.
    public static let clean = SettledTables(client: .mainOnly, server: .mainOnly)
}

extension RpcStats {
    /// `{imports: 1, exports: 1}`: a session holding only the main entries.
    public static var mainOnly: RpcStats { RpcStats(imports: 1, exports: 1) }
}

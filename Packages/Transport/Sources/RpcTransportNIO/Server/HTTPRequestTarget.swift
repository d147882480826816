/// A request the server received, by its request target (`/path?query`): what
/// ``HTTPServerRequest`` and ``WebSocketUpgradeRequest`` share, so both read their query the
/// same way.
public protocol HTTPRequestTarget {
    /// The request target as sent: path and query.
    var uri: String { get }
}

extension HTTPRequestTarget {
    /// The query of the request target, without the `?`; empty when there is none.
    public var query: String {
        HTTPQuery.query(of: uri)
    }

    /// The query's parameters in order, names and values percent-decoded (`+` as a space); a
    /// parameter without `=` has an empty value.
    public var queryItems: [(name: String, value: String)] {
        HTTPQuery.items(of: query)
    }

    /// The value of the first query parameter called `name`, percent-decoded.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}

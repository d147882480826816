public import RpcWire

/// The client's live queries as an optimistic update sees them: their current values, which the
/// update reads and replaces (Convex's `OptimisticLocalStore`). See
/// ``TinyvexClient/mutation(_:args:as:optimisticUpdate:)``.
///
/// A query is named by its name and params, as in `subscribe`; values are plain JSON, read and
/// written through `Codable` or as ``JSONValue``. Treat what you read as a value: edit
/// a copy and set it back.
public struct OptimisticLocalStore: Sendable {
    /// One query the store holds.
    struct Entry: Sendable, Equatable {
        let name: String
        let params: JSONValue
        var value: JSONValue?
    }

    /// The queries by their key (name and canonical params).
    private(set) var entries: [String: Entry]

    init(entries: [String: Entry]) {
        self.entries = entries
    }

    /// The current value of the query `name` with `params` as JSON, or `nil` when the client
    /// holds no value for it (not subscribed, or its first value has not come).
    public func getQuery(_ name: String, params: any Encodable) -> JSONValue? {
        guard let key = try? TinyvexClient.canonical(name, params).key else { return nil }
        return entries[key]?.value ?? nil
    }

    /// The current value of the query `name` with `params` decoded as `type`, or `nil` when
    /// the client holds no value for it or it does not decode.
    public func getQuery<T: Decodable>(_ name: String, params: any Encodable, as type: T.Type) -> T? {
        guard let value = getQuery(name, params: params) else { return nil }
        return try? JSONValueDecoder().decode(T.self, from: value)
    }

    /// Every query named `name` the client holds, with its params and value.
    public func allQueries(_ name: String) -> [(params: JSONValue, value: JSONValue?)] {
        entries.values.filter { $0.name == name }.map { ($0.params, $0.value) }
    }

    /// Shows `value` as the value of the query `name` with `params` until the mutation is done.
    /// Params or a value that do not encode change nothing.
    public mutating func setQuery(_ name: String, params: any Encodable, value: JSONValue) {
        guard let (key, canonical) = try? TinyvexClient.canonical(name, params) else { return }
        if entries[key] != nil {
            entries[key]?.value = value
        } else {
            entries[key] = Entry(name: name, params: canonical, value: value)
        }
    }

    /// Shows `value`, encoded, as the value of the query `name` with `params` until the
    /// mutation is done.
    public mutating func setQuery<T: Encodable>(_ name: String, params: any Encodable, value: T) {
        guard let json = try? JSONValueEncoder().encode(value) else { return }
        setQuery(name, params: params, value: json)
    }
}

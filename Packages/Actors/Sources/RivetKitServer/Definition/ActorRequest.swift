/// A raw HTTP request to an actor's ``ActorDefinition/onRequest(_:)`` handler: what a client's
/// `handle.fetch(path)` sent, with the gateway's part of the path and its `rvt-*` query items
/// taken away.
///
/// A request to `/gateway/{actor}/request/items?page=2` reaches the handler with ``path``
/// `/items` and ``query`` `page=2`.
public struct ActorRequest: Sendable, Hashable {
    /// The method, upper case (`GET`, `POST`, …).
    public var method: String
    /// The path, beginning with `/`: after `/request` for an HTTP request (`/` when nothing
    /// follows it), the whole actor path for a WebSocket upgrade (`/websocket/…`).
    public var path: String
    /// The query without its `?` and without the gateway's `rvt-*` items; empty when none.
    public var query: String
    /// The headers, each name lower case; repeated headers are joined with `, `.
    public var headers: [String: String]
    /// The whole body; empty when the request has none.
    public var body: [UInt8]

    /// Creates a request description.
    public init(
        method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (any case); `nil` when absent.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The body as UTF-8 text; `nil` when it is not valid UTF-8.
    public var bodyText: String? {
        String(validating: body, as: UTF8.self)
    }
}

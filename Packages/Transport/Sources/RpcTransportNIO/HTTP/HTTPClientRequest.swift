public import NIOHTTP1

/// A request an ``HTTPClient`` sends.
///
/// ```swift
/// var request = HTTPClientRequest(method: .PUT, path: "/actors", json: #"{"name":"counter"}"#)
/// request.headers.add(name: "x-rivet-token", value: token)
/// ```
public struct HTTPClientRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The path and query, starting with `/`, appended to the client's base path.
    public var path: String
    /// Headers sent with this request, before the client's configured ones.
    public var headers: HTTPHeaders
    /// The body; empty for none.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: HTTPMethod, path: String, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// Creates a request whose body is JSON text, with `content-type: application/json`.
    public init(method: HTTPMethod, path: String, json: String, headers: HTTPHeaders = [:]) {
        var headers = headers
        headers.replaceOrAdd(name: "content-type", value: "application/json")
        self.init(method: method, path: path, headers: headers, body: Array(json.utf8))
    }
}

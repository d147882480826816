public import NIOHTTP1

/// The answer a ``TransportServer``'s request handler gives to an ``HTTPServerRequest``.
///
/// ```swift
/// HTTPServerResponse(status: 200, json: #"{"ok":true}"#)
/// ```
public struct HTTPServerResponse: Sendable {
    /// The status code; values outside 100–599 are sent as 500.
    public var status: Int
    /// The response headers. `content-length` and `connection` are set by the server.
    public var headers: HTTPHeaders
    /// The body.
    public var body: [UInt8]

    /// Creates a response with a status, headers and a body.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates a response whose body is JSON text, with `content-type: application/json`.
    public init(status: Int, json: String, headers: HTTPHeaders = [:]) {
        var headers = headers
        headers.replaceOrAdd(name: "content-type", value: "application/json")
        self.init(status: status, headers: headers, body: Array(json.utf8))
    }

    /// Creates a response whose body is plain text, with `content-type: text/plain; charset=utf-8`.
    public init(status: Int, text: String, headers: HTTPHeaders = [:]) {
        var headers = headers
        headers.replaceOrAdd(name: "content-type", value: "text/plain; charset=utf-8")
        self.init(status: status, headers: headers, body: Array(text.utf8))
    }
}

public import NIOHTTP1

/// The whole response an ``HTTPClient`` received.
public struct HTTPClientResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The whole body.
    public var body: [UInt8]

    /// Creates a response description.
    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text; `nil` when it is not valid UTF-8.
    public var text: String? {
        String(validating: body, as: UTF8.self)
    }
}

public import RivetKit

/// What an actor's ``ActorDefinition/onRequest(_:)`` handler answers: a status, headers and a
/// body, sent to the client as they are.
///
/// ```swift
/// ActorResponse(status: 404)
/// try ActorResponse.json(["count": 3])
/// ```
public struct ActorResponse: Sendable, Hashable {
    /// The status code; values outside 100–599 are sent as 500.
    public var status: Int
    /// The headers. `content-length` and `connection` are set by the server.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// Creates a response with a status, headers and a body (empty by default).
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates a response whose body is plain text, with `content-type: text/plain; charset=utf-8`.
    public init(status: Int = 200, text: String, headers: [String: String] = [:]) {
        var headers = headers
        headers["content-type"] = "text/plain; charset=utf-8"
        self.init(status: status, headers: headers, body: Array(text.utf8))
    }

    /// A response whose body is `value` encoded as JSON, with `content-type: application/json`.
    ///
    /// - Throws: ``ActorError`` `request.invalid` when `value` cannot be encoded as JSON.
    public static func json(_ value: some Encodable, status: Int = 200, headers: [String: String] = [:])
        throws(ActorError) -> ActorResponse
    {
        let text: String
        do {
            text = try ActorValueCoding.encode(value).jsonString()
        } catch {
            throw ActorError(.requestInvalid, "the response body cannot be encoded as JSON")
        }
        var headers = headers
        headers["content-type"] = "application/json"
        return ActorResponse(status: status, headers: headers, body: Array(text.utf8))
    }
}

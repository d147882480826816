public import Vapor
public import RpcTransportNIO

extension Response {
    /// The Vapor response for an answer of our servers' HTTP handlers: its status (sent as 500
    /// outside 100–599), headers and body. Vapor sets `content-length` and `connection`.
    ///
    /// - Parameter response: The answer.
    public convenience init(_ response: HTTPServerResponse) {
        let status =
            (100 ... 599).contains(response.status)
            ? HTTPResponseStatus(statusCode: response.status) : .internalServerError
        var headers = response.headers
        headers.remove(name: "content-length")
        headers.remove(name: "connection")
        self.init(status: status, headers: headers, body: Response.Body(buffer: ByteBuffer(bytes: response.body)))
    }
}

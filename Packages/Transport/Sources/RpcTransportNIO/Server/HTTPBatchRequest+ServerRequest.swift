public import RpcTransport
import NIOCore

extension HTTPBatchRequest {
    /// The batch a POST carries, for a server other than ``TransportServer`` (a web framework's
    /// router) that has read the request whole: the body's messages split at `\n`, exactly as
    /// ``TransportServer`` splits them (one trailing newline is tolerated, an empty body is an
    /// empty batch).
    ///
    /// ```swift
    /// let batch = try HTTPBatchRequest(request)
    /// let answers = try await answer(batch.messages)
    /// return HTTPServerResponse(batch: answers)
    /// ```
    ///
    /// - Parameter request: The request, its body read whole.
    /// - Throws: ``TransportError`` with code `httpStatus` and status 400 when the
    ///   body is not valid UTF-8.
    public init(_ request: HTTPServerRequest) throws(TransportError) {
        guard let messages = HTTPBatchBody.decode(ByteBuffer(bytes: request.body)) else {
            throw TransportError(code: .httpStatus, message: "the body is not valid UTF-8", httpStatus: 400)
        }
        self.init(
            path: request.path, uri: request.uri, headers: request.headers, remoteAddress: request.remoteAddress,
            messages: messages)
    }
}

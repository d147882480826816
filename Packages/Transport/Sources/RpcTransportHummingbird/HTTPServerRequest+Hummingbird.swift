public import Hummingbird
public import NIOCore
public import RpcTransport
public import RpcTransportNIO
import NIOHTTP1

extension HTTPServerRequest {
    /// The request a Hummingbird route received, as this repository's servers read one: its
    /// method, target, headers and whole body.
    ///
    /// ```swift
    /// router.post("/echo") { request, context in
    ///     let request = try await HTTPServerRequest(request, maxBodySize: 1 << 20)
    ///     return Response(HTTPServerResponse(status: 200, body: request.body))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The route's request; its body is read here.
    ///   - uri: The target to record instead of the request's own (the part after a mount's
    ///     prefix, say); `nil` keeps the request's.
    ///   - remoteAddress: The client's address, when the route knows it.
    ///   - maxBodySize: The largest body read, in bytes.
    /// - Throws: ``RpcTransport/TransportError`` with code `requestTooLarge` and status 413
    ///   for a larger body, `ioError` when the body cannot be read.
    public init(
        _ request: Request,
        uri: String? = nil,
        remoteAddress: SocketAddress? = nil,
        maxBodySize: Int
    ) async throws(TransportError) {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: max(maxBodySize, 0))
        } catch is NIOTooManyBytesError {
            throw TransportError(
                code: .requestTooLarge, message: "the request body is over the limit of \(maxBodySize) bytes", httpStatus: 413)
        } catch {
            throw TransportError(code: .ioError, message: "the request body could not be read: \(error)", cause: error)
        }
        self.init(
            method: HTTPMethod(rawValue: request.method.rawValue),
            uri: uri ?? request.uri.string,
            headers: HTTPHeaders(request.headers),
            body: Array(body.readableBytesView),
            remoteAddress: remoteAddress)
    }
}

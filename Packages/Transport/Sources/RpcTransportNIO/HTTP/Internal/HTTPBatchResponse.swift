import NIOCore
import NIOHTTP1

/// A complete HTTP response to a batch request.
struct HTTPBatchResponse: Sendable {
    /// The response head.
    var head: HTTPResponseHead
    /// The whole body.
    var body: ByteBuffer
}

public import RpcTransport
import NIOCore
import NIOHTTP1

extension HTTPServerResponse {
    /// The answer to an HTTP batch: 200 with the messages joined by `\n`, as ``TransportServer``
    /// answers one, for a server other than it (a web framework's router).
    ///
    /// - Parameter messages: The answer's messages, all text without a newline.
    public init(batch messages: [TransportMessage]) {
        let body = HTTPBatchBody.encode(messages, allocator: ByteBufferAllocator())
        self.init(
            status: 200, headers: ["content-type": HTTPBatchBody.contentType],
            body: body.getBytes(at: body.readerIndex, length: body.readableBytes) ?? [])
    }
}

import NIOCore
import RpcTransport

/// The body format of an HTTP batch: text messages joined by `\n`, without a trailing newline.
/// One trailing newline is tolerated on input; an empty body is an empty batch.
enum HTTPBatchBody {
    /// The content type of batch bodies.
    static let contentType = "text/plain; charset=utf-8"

    /// The body carrying `messages`.
    static func encode(_ messages: [TransportMessage], allocator: ByteBufferAllocator) -> ByteBuffer {
        let size = messages.reduce(max(messages.count - 1, 0)) { $0 + $1.bytes.count }
        var buffer = allocator.buffer(capacity: size)
        for (index, message) in messages.enumerated() {
            if index > 0 {
                buffer.writeInteger(UInt8(ascii: "\n"))
            }
            buffer.writeBytes(message.bytes)
        }
        return buffer
    }

    /// Whether `message` can travel in a batch body: text without a newline.
    static func canCarry(_ message: TransportMessage) -> Bool {
        message.kind == .text && !message.bytes.contains(UInt8(ascii: "\n"))
    }

    /// The messages of a body; `nil` when it is not valid UTF-8.
    static func decode(_ body: ByteBuffer) -> [TransportMessage]? {
        body.withUnsafeReadableBytes { raw -> [TransportMessage]? in
            var bytes = raw[...]
            if bytes.last == UInt8(ascii: "\n") {
                bytes = bytes.dropLast()
            }
            guard !bytes.isEmpty else { return [] }
            guard UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: bytes)) else { return nil }
            return bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
                TransportMessage.text(utf8: Array($0))
            }
        }
    }
}

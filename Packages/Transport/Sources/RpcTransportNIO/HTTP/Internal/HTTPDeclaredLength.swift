import NIOHTTP1

/// The body length an HTTP message announces in `Content-Length`, checked against a limit
/// without trusting its size.
enum HTTPDeclaredLength {
    /// Whether `headers` announce a body longer than `limit` bytes. A value of digits too long
    /// for `Int` is longer than any limit; a value that is not a length at all is left to the
    /// HTTP parser, which refuses it.
    static func exceeds(_ limit: Int, in headers: HTTPHeaders) -> Bool {
        guard let value = headers.first(name: "content-length") else { return false }
        if let length = Int(value) {
            return length > limit
        }
        return !value.isEmpty && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}

import CRpcOpenSSL

/// The calling thread's OpenSSL error queue.
///
/// Error queues are per thread and event loop threads run many connections, so the queue is
/// cleared before every OpenSSL call whose outcome is judged by it, and drained after a failure.
enum OpenSSLErrorQueue {
    /// One queued error.
    struct Entry {
        /// The packed error code.
        var code: UInt
        /// OpenSSL's text for the code.
        var text: String

        /// The reason part of the code.
        var reason: Int32 { ERR_GET_REASON(code) }
        /// The library part of the code.
        var library: Int32 { ERR_GET_LIB(code) }
    }

    /// Discards every queued error.
    static func clear() {
        ERR_clear_error()
    }

    /// Removes and returns every queued error, oldest first.
    static func drain() -> [Entry] {
        var entries: [Entry] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            entries.append(Entry(code: UInt(code), text: text(for: UInt(code))))
        }
        return entries
    }

    /// The queued errors as one line of text, or `fallback` when the queue is empty; the queue is
    /// left empty.
    static func drainedDescription(fallback: String) -> String {
        describe(drain(), fallback: fallback)
    }

    /// The entries as one line of text, or `fallback` when there are none.
    static func describe(_ entries: [Entry], fallback: String) -> String {
        entries.isEmpty ? fallback : entries.map(\.text).joined(separator: "; ")
    }

    private static func text(for code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
            guard let base = pointer.baseAddress else { return 0 }
            ERR_error_string_n(code, base, pointer.count)
            return pointer.firstIndex(of: 0) ?? pointer.count
        }
        let bytes = buffer.prefix(length).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

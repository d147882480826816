/// The XOR masking of WebSocket payloads (RFC 6455, section 5.3), eight bytes at a time.
///
/// Masking and unmasking are the same operation; both are done while the payload is copied, so
/// a payload is touched once on its way between the socket buffer and a message.
enum WebSocketMasking {
    /// Copies `source` to `destination` (at least as long), XOR-ing every byte with `key`.
    /// `source` may be `destination` itself: each byte is read before it is written.
    ///
    /// - Parameters:
    ///   - key: The four masking key bytes, in wire order.
    static func copy(
        _ source: UnsafeRawBufferPointer,
        to destination: UnsafeMutableRawBufferPointer,
        key: (UInt8, UInt8, UInt8, UInt8)
    ) {
        let count = source.count
        guard count > 0, let from = source.baseAddress, let to = destination.baseAddress else { return }
        precondition(destination.count >= count, "masking destination too small")
        // The key repeated over eight bytes: byte i of `pattern` is key byte i % 4, and `wide`
        // holds the same bytes in memory order.
        let quad = UInt32(key.0) | UInt32(key.1) << 8 | UInt32(key.2) << 16 | UInt32(key.3) << 24
        let pattern = UInt64(quad) | UInt64(quad) << 32
        let wide = UInt64(littleEndian: pattern)
        var index = 0
        while index + 8 <= count {
            let word = from.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            to.storeBytes(of: word ^ wide, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            let byte = from.load(fromByteOffset: index, as: UInt8.self)
            let keyByte = UInt8(truncatingIfNeeded: pattern >> UInt64((index & 7) * 8))
            to.storeBytes(of: byte ^ keyByte, toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }

    /// Appends `source` to `bytes`, unmasked with `key` when there is one.
    static func append(
        _ source: UnsafeRawBufferPointer,
        to bytes: inout [UInt8],
        key: (UInt8, UInt8, UInt8, UInt8)?
    ) {
        guard let key else {
            bytes.append(contentsOf: source)
            return
        }
        // The masked bytes are copied in one block, then unmasked where they lie. Growing the
        // array with a repeated zero instead goes element by element in an unoptimised build,
        // about 0.75 s for a 4 MiB message, long enough to hold up every connection on the loop.
        let start = bytes.count
        bytes.append(contentsOf: source)
        bytes.withUnsafeMutableBytes { all in
            let tail = UnsafeMutableRawBufferPointer(rebasing: all[start...])
            copy(UnsafeRawBufferPointer(tail), to: tail, key: key)
        }
    }

    /// The bytes of `source`, unmasked with `key` when there is one, as a new array.
    static func array(_ source: UnsafeRawBufferPointer, key: (UInt8, UInt8, UInt8, UInt8)?) -> [UInt8] {
        // Filled by `append` rather than made with `init(unsafeUninitializedCapacity:)`: that
        // initialiser is not specialised here and looks up the array's metadata on every call.
        var bytes: [UInt8] = []
        append(source, to: &bytes, key: key)
        return bytes
    }
}

/// Byte-for-byte comparison of keys, the way JSON compares them.
///
/// `String`'s `==` compares by canonical equivalence, which would let `"é"` written as one
/// scalar match `e` plus a combining accent; keys must instead match exactly.
enum KeyComparison {
    /// Whether both strings have the same UTF-8 bytes.
    @inline(__always)
    static func equal(_ left: String, _ right: String) -> Bool {
        // Two strings with the same representation hold the same bytes: short keys are
        // stored inline, so a key read from JSON and the same key written as a literal in a
        // `CodingKey` usually match here without looking at their bytes.
        if MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size,
           unsafeBitCast(left, to: (UInt64, UInt64).self) == unsafeBitCast(right, to: (UInt64, UInt64).self) {
            return true
        }
        let leftUTF8 = left.utf8
        let rightUTF8 = right.utf8
        guard leftUTF8.count == rightUTF8.count else { return false }
        let result = leftUTF8.withContiguousStorageIfAvailable { leftBytes in
            rightUTF8.withContiguousStorageIfAvailable { rightBytes in
                equal(leftBytes, rightBytes)
            }
        }
        if let result, let result {
            return result
        }
        return leftUTF8.elementsEqual(rightUTF8)
    }

    /// Whether two buffers of the same length hold the same bytes, compared eight at a time.
    static func equal(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else {
            return left.count == right.count
        }
        let count = min(left.count, right.count)
        var offset = 0
        while count - offset >= 8 {
            let leftWord = UnsafeRawPointer(leftBase + offset).loadUnaligned(as: UInt64.self)
            let rightWord = UnsafeRawPointer(rightBase + offset).loadUnaligned(as: UInt64.self)
            if leftWord != rightWord {
                return false
            }
            offset += 8
        }
        while offset < count {
            if leftBase[offset] != rightBase[offset] {
                return false
            }
            offset += 1
        }
        return left.count == right.count
    }
}

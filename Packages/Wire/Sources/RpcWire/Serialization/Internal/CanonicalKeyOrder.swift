/// The order of object keys in canonical output: by UTF-16 code units, as RFC 8785 (JSON
/// Canonicalization Scheme) sorts them.
///
/// Keys are compared through their UTF-8 bytes. Byte order equals code point order, which
/// equals UTF-16 order except between a character above U+FFFF (a surrogate pair in UTF-16,
/// starting at 0xD800) and a character from U+E000 to U+FFFF: there UTF-16 puts the former
/// first. That one case is corrected when it decides the comparison.
enum CanonicalKeyOrder {
    /// Whether `left` sorts before `right`.
    static func precedes(_ left: String, _ right: String) -> Bool {
        let result = left.utf8.withContiguousStorageIfAvailable { leftBytes in
            right.utf8.withContiguousStorageIfAvailable { rightBytes in
                precedes(leftBytes, rightBytes)
            }
        }
        if let result, let result {
            return result
        }
        return left.utf16.lexicographicallyPrecedes(right.utf16)
    }

    /// Whether the well-formed UTF-8 `left` sorts before `right` by UTF-16 code units.
    static func precedes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let shared = min(left.count, right.count)
        var index = 0
        while index < shared, left[index] == right[index] {
            index += 1
        }
        if index == shared {
            return left.count < right.count
        }
        // Both strings agree before `index`, so the scalar holding the first difference starts
        // at the same place in each.
        var scalarStart = index
        while scalarStart > 0, left[scalarStart] & 0xC0 == 0x80 {
            scalarStart -= 1
        }
        let leftLead = left[scalarStart]
        let rightLead = right[scalarStart]
        let leftIsSupplementary = leftLead >= 0xF0
        let rightIsSupplementary = rightLead >= 0xF0
        if leftIsSupplementary != rightIsSupplementary {
            // Lead bytes 0xEE and 0xEF start U+E000 to U+FFFF.
            let otherLead = leftIsSupplementary ? rightLead : leftLead
            if otherLead >= 0xEE {
                return leftIsSupplementary
            }
        }
        return left[index] < right[index]
    }
}

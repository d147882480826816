/// Strings built from bytes that the reader has already checked to be well-formed UTF-8.
///
/// The standard library's usual initialisers validate their input, which for text the reader
/// has just checked byte by byte would be a second pass over every string. Where the standard
/// library offers an initialiser that trusts its caller (`UTF8Span(unchecked:isKnownASCII:)`,
/// from Swift 6.2 and the corresponding OS releases), that pass is skipped.
enum CheckedUTF8 {
    /// Whether ``string(_:count:isASCII:)`` can build strings on this system.
    @inline(__always)
    static var isAvailable: Bool {
        #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            return true
        }
        #endif
        return false
    }

    /// A string holding the `count` bytes at `bytes`, which must be well-formed UTF-8 and,
    /// when `isASCII` is true, all ASCII (the flag is stored in the string and trusted by
    /// later operations on it); nil where the system has no way to build it without
    /// validating the bytes again.
    @inline(__always)
    static func string(_ bytes: UnsafePointer<UInt8>, count: Int, isASCII: Bool) -> String? {
        #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            let buffer = UnsafeBufferPointer(start: bytes, count: count)
            return String(copying: UTF8Span(unchecked: buffer.span, isKnownASCII: isASCII))
        }
        #endif
        return nil
    }
}

/// Reads one JSON document from a borrowed UTF-8 buffer in a single pass.
///
/// A recursive-descent reader over a raw pointer and an index: every read is preceded by an
/// explicit end check and nothing else, strings are scanned eight bytes at a time, and the
/// elements of arrays and members of objects collect on two stacks shared by all nesting
/// levels before they move into arrays of exactly the right size.
struct JSONReader: ~Copyable {
    /// Where a value is being read, for error messages.
    enum Context {
        case topLevel
        case array
        case object
    }

    private let input: UnsafeBufferPointer<UInt8>
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var index = 0
    private var depth = 0
    private let maxDepth: Int
    private let rejectsDuplicateKeys: Bool
    /// Whether an unpaired surrogate escape becomes U+FFFD instead of an error.
    private let replacesLoneSurrogates: Bool
    /// Decoded bytes of the last string read that contained escapes; allocated on the first
    /// such string and grown geometrically.
    private var scratch: UnsafeMutablePointer<UInt8>? = nil
    private var scratchCapacity = 0
    private var values: ElementStack<JSONValue>
    private var members: ElementStack<PendingMember>

    /// A member of an object being read, with a cheap digest of its key's bytes that settles
    /// most key comparisons of the duplicate check without looking at the strings.
    struct PendingMember {
        var member: JSONObject.Member
        var fingerprint: UInt64
    }

    /// Bytes of machine stack worth lending to a reader (see ``init(input:configuration:workspace:)``);
    /// small enough to be placed on the stack by a temporary allocation.
    static let workspaceByteCount = 1024

    /// The alignment the workspace needs.
    static var workspaceAlignment: Int {
        max(MemoryLayout<PendingMember>.alignment, MemoryLayout<JSONValue>.alignment)
    }

    /// Prepares to read `input`, which must not be empty.
    ///
    /// The reader starts its element and member stacks in `workspace`, which must stay valid
    /// until the reader is gone; documents that fit in it need no heap memory for the stacks.
    init(
        input: UnsafeBufferPointer<UInt8>,
        configuration: JSONParser.Configuration,
        workspace: UnsafeMutableRawBufferPointer
    ) {
        self.input = input
        base = input.baseAddress.unsafelyUnwrapped
        end = input.count
        maxDepth = configuration.maxDepth
        rejectsDuplicateKeys = configuration.duplicateKeys == .reject
        replacesLoneSurrogates = configuration.loneSurrogates == .replaceWithReplacementCharacter
        // Members take about half of the workspace, element values the rest.
        let memberStride = MemoryLayout<PendingMember>.stride
        let valueStride = MemoryLayout<JSONValue>.stride
        let memberCount = workspace.count / 2 / memberStride
        let memberBytes = memberCount * memberStride
        let valueOffset = (memberBytes + valueStride - 1) / valueStride * valueStride
        let valueCount = max(0, workspace.count - valueOffset) / valueStride
        let memberBuffer = UnsafeMutableRawBufferPointer(rebasing: workspace[0..<memberBytes])
            .bindMemory(to: PendingMember.self)
        let valueBuffer = UnsafeMutableRawBufferPointer(
            rebasing: workspace[valueOffset..<(valueOffset + valueCount * valueStride)]
        ).bindMemory(to: JSONValue.self)
        members = ElementStack(buffer: memberBuffer, initialCapacity: 32)
        values = ElementStack(buffer: valueBuffer, initialCapacity: 64)
    }

    deinit {
        if let scratch {
            scratch.deinitialize(count: scratchCapacity)
            scratch.deallocate()
        }
    }

    /// Reads the whole input as one JSON text.
    mutating func parseDocument() throws(WireError) -> JSONValue {
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF {
            try ParseDiagnostics.byteOrderMark(in: input)
        }
        skipWhitespace()
        guard index < end else {
            try ParseDiagnostics.unexpectedEnd("where a JSON value was expected (the input is only white space)", in: input)
        }
        let value = try parseValue(.topLevel)
        skipWhitespace()
        guard index == end else {
            try ParseDiagnostics.trailingData(at: index, in: input)
        }
        return value
    }

    // MARK: - Values

    /// Reads the value starting at `index`, which is in bounds and not white space.
    ///
    /// Inlined into the container loops, so that reading a scalar costs no extra call.
    @inline(__always)
    private mutating func parseValue(_ context: Context) throws(WireError) -> JSONValue {
        switch base[index] {
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "t"):
            // "true" read as one little-endian word.
            if end &- index >= 4, load32(at: index) == 0x6575_7274 {
                index &+= 4
                return .bool(true)
            }
            try ParseDiagnostics.invalidLiteral("true", at: index, in: input)
        case UInt8(ascii: "f"):
            // "alse" after the "f".
            if end &- index >= 5, load32(at: index &+ 1) == 0x6573_6C61 {
                index &+= 5
                return .bool(false)
            }
            try ParseDiagnostics.invalidLiteral("false", at: index, in: input)
        case UInt8(ascii: "n"):
            // "null".
            if end &- index >= 4, load32(at: index) == 0x6C6C_756E {
                index &+= 4
                return .null
            }
            try ParseDiagnostics.invalidLiteral("null", at: index, in: input)
        default:
            try ParseDiagnostics.unexpectedValueStart(at: index, context: context, in: input)
        }
    }

    @inline(__always)
    private func load32(at offset: Int) -> UInt32 {
        UInt32(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt32.self))
    }

    // MARK: - White space

    @inline(__always)
    private mutating func skipWhitespace() {
        var position = index
        while position < end {
            let byte = base[position]
            guard byte <= 0x20,
                byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
            else { break }
            position &+= 1
        }
        index = position
    }

    // MARK: - Containers

    private mutating func parseArray() throws(WireError) -> JSONValue {
        depth &+= 1
        guard depth <= maxDepth else {
            try ParseDiagnostics.depthLimitExceeded(at: index, limit: maxDepth, in: input)
        }
        index &+= 1
        skipWhitespace()
        guard index < end else {
            try ParseDiagnostics.unexpectedEnd("in array, expected a value or ']'", in: input)
        }
        if base[index] == UInt8(ascii: "]") {
            index &+= 1
            depth &-= 1
            return .array([])
        }
        let start = values.count
        while true {
            values.push(try parseValue(.array))
            skipWhitespace()
            guard index < end else {
                try ParseDiagnostics.unexpectedEnd("in array, expected ',' or ']'", in: input)
            }
            let byte = base[index]
            index &+= 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
                guard index < end else {
                    try ParseDiagnostics.unexpectedEnd("in array, expected a value after ','", in: input)
                }
                continue
            }
            if byte == UInt8(ascii: "]") {
                break
            }
            try ParseDiagnostics.unexpected(at: index &- 1, "in array, expected ',' or ']'", in: input)
        }
        depth &-= 1
        return .array(values.popArray(from: start))
    }

    private mutating func parseObject() throws(WireError) -> JSONValue {
        depth &+= 1
        guard depth <= maxDepth else {
            try ParseDiagnostics.depthLimitExceeded(at: index, limit: maxDepth, in: input)
        }
        index &+= 1
        skipWhitespace()
        guard index < end else {
            try ParseDiagnostics.unexpectedEnd("in object, expected a key or '}'", in: input)
        }
        if base[index] == UInt8(ascii: "}") {
            index &+= 1
            depth &-= 1
            return .object(JSONObject())
        }
        let start = members.count
        // Built once the object outgrows a linear search; becomes the object's own index.
        var keyIndex: [JSONKey: Int]? = nil
        while true {
            let keyOffset = index
            guard base[index] == UInt8(ascii: "\"") else {
                try ParseDiagnostics.unexpectedKeyStart(at: index, in: input)
            }
            let (key, fingerprint) = try parseKey()
            skipWhitespace()
            guard index < end else {
                try ParseDiagnostics.unexpectedEnd("in object, expected ':' after the key", in: input)
            }
            guard base[index] == UInt8(ascii: ":") else {
                try ParseDiagnostics.unexpected(at: index, "in object, expected ':' after the key", in: input)
            }
            index &+= 1
            skipWhitespace()
            guard index < end else {
                try ParseDiagnostics.unexpectedEnd("in object, expected a value after ':'", in: input)
            }
            let existing = position(of: key, fingerprint: fingerprint, from: start, keyIndex: keyIndex)
            if existing != nil, rejectsDuplicateKeys {
                try ParseDiagnostics.duplicateKey(key, at: keyOffset, in: input)
            }
            let value = try parseValue(.object)
            if let existing {
                members[start &+ existing].member.value = value
            } else {
                if keyIndex != nil {
                    keyIndex![JSONKey(key)] = members.count &- start
                }
                // The key's last use: it moves into the stack without a copy.
                members.push(PendingMember(member: JSONObject.Member(key: key, value: value), fingerprint: fingerprint))
                if keyIndex == nil, members.count &- start > JSONObject.indexThreshold {
                    keyIndex = makeKeyIndex(from: start)
                }
            }
            skipWhitespace()
            guard index < end else {
                try ParseDiagnostics.unexpectedEnd("in object, expected ',' or '}'", in: input)
            }
            let byte = base[index]
            index &+= 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
                guard index < end else {
                    try ParseDiagnostics.unexpectedEnd("in object, expected a key after ','", in: input)
                }
                continue
            }
            if byte == UInt8(ascii: "}") {
                break
            }
            try ParseDiagnostics.unexpected(at: index &- 1, "in object, expected ',' or '}'", in: input)
        }
        depth &-= 1
        var object = JSONObject()
        object.members = members.popArray(from: start) { $0.member }
        object.index = keyIndex
        return .object(object)
    }

    /// The position of `key` among the members read so far of the object starting at `start`.
    @inline(__always)
    private func position(
        of key: String,
        fingerprint: UInt64,
        from start: Int,
        keyIndex: [JSONKey: Int]?
    ) -> Int? {
        if keyIndex != nil {
            return keyIndex.unsafelyUnwrapped[JSONKey(key)]
        }
        return members.withElements(from: start) { elements in
            for position in elements.indices
            where elements[position].fingerprint == fingerprint
                && JSONKey.equal(elements[position].member.key, key)
            {
                return position
            }
            return nil
        }
    }

    /// A hash index of the (unique) keys of the object starting at `start`.
    @inline(never)
    private func makeKeyIndex(from start: Int) -> [JSONKey: Int] {
        members.withElements(from: start) { elements in
            var keyIndex = [JSONKey: Int](minimumCapacity: elements.count * 2)
            for position in elements.indices {
                keyIndex[JSONKey(elements[position].member.key)] = position
            }
            return keyIndex
        }
    }

    // MARK: - Strings

    /// Reads the string whose opening quote is at `index`.
    @inline(__always)
    private mutating func parseString() throws(WireError) -> String {
        let start = index &+ 1
        let (stop, isASCII) = try scanStringRun(from: start)
        if base[stop] == UInt8(ascii: "\"") {
            index = stop &+ 1
            return Self.makeString(base + start, count: stop &- start, isASCII: isASCII, readable: end &- start)
        }
        return try parseEscapedString(from: start, firstEscape: stop, isASCII: isASCII).string
    }

    /// Reads the object key whose opening quote is at `index`, with the fingerprint of its
    /// decoded bytes.
    @inline(__always)
    private mutating func parseKey() throws(WireError) -> (key: String, fingerprint: UInt64) {
        let start = index &+ 1
        let (stop, isASCII) = try scanStringRun(from: start)
        if base[stop] == UInt8(ascii: "\"") {
            index = stop &+ 1
            let length = stop &- start
            return (
                Self.makeString(base + start, count: length, isASCII: isASCII, readable: end &- start),
                Self.fingerprint(base + start, count: length)
            )
        }
        let (key, length) = try parseEscapedString(from: start, firstEscape: stop, isASCII: isASCII)
        return (key, Self.fingerprint(scratch.unsafelyUnwrapped, count: length))
    }

    /// A string from bytes already checked to be well-formed UTF-8, all of them ASCII when
    /// `isASCII` is true; `readable` bytes (at least `count`) may be read from `bytes`.
    ///
    /// Where the standard library can take such bytes as they are, they are not checked again.
    @inline(__always)
    private static func makeString(
        _ bytes: UnsafePointer<UInt8>,
        count: Int,
        isASCII: Bool,
        readable: Int
    ) -> String {
        // Short strings are stored inline; for those, filling one in place and letting the
        // standard library check it is cheaper than any other way.
        if count > 15, let string = CheckedUTF8.string(bytes, count: count, isASCII: isASCII) {
            return string
        }
        return makeStringValidating(bytes, count: count, readable: readable)
    }

    /// A string from well-formed UTF-8 built through the standard library's validating
    /// initialisers, for systems without an initialiser that trusts the caller; `readable`
    /// bytes (at least `count`) may be read from `bytes`.
    @inline(__always)
    private static func makeStringValidating(_ bytes: UnsafePointer<UInt8>, count: Int, readable: Int) -> String {
        guard count <= 15 else {
            return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
        // Short strings are stored inline, and filling one in place is cheaper than decoding.
        if count == 0 {
            return ""
        }
        let source = UnsafeRawPointer(bytes)
        if count <= 8 ? readable >= 8 : readable >= 15 {
            // Write whole words with one store each, so that the standard library's reading
            // them back is served straight from the store buffer. The bytes past `count` are
            // in the requested capacity and are not part of the result.
            return String(unsafeUninitializedCapacity: 15) { destination in
                let target = UnsafeMutableRawPointer(destination.baseAddress.unsafelyUnwrapped)
                if count > 8 {
                    target.storeBytes(of: source.loadUnaligned(fromByteOffset: 7, as: UInt64.self), toByteOffset: 7, as: UInt64.self)
                }
                target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
                return count
            }
        }
        return String(unsafeUninitializedCapacity: count) { destination in
            copySmall(bytes, to: UnsafeMutableRawPointer(destination.baseAddress.unsafelyUnwrapped), count: count)
            return count
        }
    }

    /// Copies 1 to 15 bytes with at most two overlapping loads and stores of one width, which
    /// beats a call to a general copy routine at this size.
    @inline(__always)
    private static func copySmall(_ source: UnsafePointer<UInt8>, to destination: UnsafeMutableRawPointer, count: Int) {
        let from = UnsafeRawPointer(source)
        if count >= 8 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            destination.storeBytes(of: head, as: UInt64.self)
            destination.storeBytes(of: tail, toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
            destination.storeBytes(of: head, as: UInt32.self)
            destination.storeBytes(of: tail, toByteOffset: count &- 4, as: UInt32.self)
        } else {
            destination.storeBytes(of: source[0], as: UInt8.self)
            destination.storeBytes(of: source[count &>> 1], toByteOffset: count &>> 1, as: UInt8.self)
            destination.storeBytes(of: source[count &- 1], toByteOffset: count &- 1, as: UInt8.self)
        }
    }

    /// A digest of a key's bytes: equal keys have equal fingerprints, and different keys
    /// rarely do (their length, first and last bytes all take part).
    @inline(__always)
    private static func fingerprint(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        var digest = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        let raw = UnsafeRawPointer(bytes)
        if count >= 8 {
            let head = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            let tail = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
            digest ^= head ^ (tail &<< 29 | tail &>> 35)
        } else if count >= 4 {
            let head = UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self))
            let tail = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
            digest ^= UInt64(head) | UInt64(tail) &<< 32
        } else if count > 0 {
            digest ^= UInt64(bytes[0]) | UInt64(bytes[count &>> 1]) &<< 8 | UInt64(bytes[count &- 1]) &<< 16
        }
        return digest
    }

    /// The offset of the first `"` or `\` at or after `position`, having checked that the bytes
    /// before it are well-formed UTF-8 without control characters, and whether they are all
    /// ASCII.
    @inline(__always)
    private func scanStringRun(from position: Int) throws(WireError) -> (stop: Int, isASCII: Bool) {
        var offset = position
        var isASCII = true
        while true {
            // Eight bytes per step while they are plain, then one.
            while offset &+ 8 <= end {
                let mask = Self.specialBytes(in: load64(at: offset))
                if mask != 0 {
                    offset &+= mask.trailingZeroBitCount &>> 3
                    break
                }
                offset &+= 8
            }
            guard offset < end else {
                try ParseDiagnostics.unexpectedEnd("in string, expected a closing '\"'", in: input)
            }
            var byte = base[offset]
            if byte >= 0x80 {
                // A run of non-ASCII text: check sequence after sequence without going back to
                // the word-at-a-time scan, which would stop at once; that scan then takes over
                // again from the first ASCII byte, whatever it is.
                isASCII = false
                repeat {
                    let length = end &- offset >= 4
                        ? UTF8Sequence.validLength(word: load32(at: offset))
                        : UTF8Sequence.validLength(at: offset, base: base, end: end)
                    guard length != 0 else {
                        try ParseDiagnostics.invalidUTF8(at: offset, in: input)
                    }
                    offset &+= length
                    guard offset < end else {
                        try ParseDiagnostics.unexpectedEnd("in string, expected a closing '\"'", in: input)
                    }
                    byte = base[offset]
                } while byte >= 0x80
                continue
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return (offset, isASCII)
            }
            if byte < 0x20 {
                try ParseDiagnostics.controlCharacter(at: offset, in: input)
            }
            offset &+= 1
        }
    }

    @inline(__always)
    private func load64(at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
    }

    /// A mask whose lowest set bit marks the first byte of `word` (in memory order) that is a
    /// quote, a backslash, a control character or not ASCII; zero when there is none.
    ///
    /// Bits above the first marked byte may be spurious (borrows propagate upwards), so only the
    /// lowest one is meaningful.
    @inline(__always)
    private static func specialBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let isQuote = (quotes &- ones) & ~quotes
        let isBackslash = (backslashes &- ones) & ~backslashes
        let isControl = (word &- ones &* 0x20) & ~word
        return (isQuote | isBackslash | isControl | word) & highBits
    }

    /// Reads the rest of a string that contains escapes, whose bytes before `firstEscape` are
    /// already checked (and all ASCII when `isASCII` is true); returns it with the number of
    /// its decoded bytes, which the scratch buffer then holds.
    ///
    /// The decoded text is well-formed UTF-8 exactly when the raw text between the escapes is
    /// (an escape always decodes to whole sequences, and no sequence can straddle one), so the
    /// first attempt decodes without checking the UTF-8 and checks the decoded text in one go
    /// afterwards: with ``UTF8Sequence/validate(_:count:)`` where strings can be built from
    /// checked bytes, otherwise through the standard library's validation, which building the
    /// string then performs anyway. When that attempt finds anything wrong, the string is read
    /// again with every check in order, which reports the first problem exactly.
    @inline(__always)
    private mutating func parseEscapedString(
        from start: Int,
        firstEscape: Int,
        isASCII prefixIsASCII: Bool
    ) throws(WireError) -> (string: String, count: Int) {
        if let count = decodeEscapedStringUnchecked(from: start, firstEscape: firstEscape) {
            let decoded = scratch.unsafelyUnwrapped
            if CheckedUTF8.isAvailable {
                // The bytes before the first escape were checked when they were scanned.
                let checked = firstEscape &- start
                if let restIsASCII = UTF8Sequence.validate(decoded + checked, count: count &- checked) {
                    let isASCII = prefixIsASCII && restIsASCII
                    return (Self.makeString(decoded, count: count, isASCII: isASCII, readable: scratchCapacity), count)
                }
            } else if let string = String(validating: UnsafeBufferPointer(start: decoded, count: count), as: UTF8.self) {
                return (string, count)
            }
        }
        let count = try decodeEscapedString(from: start, firstEscape: firstEscape)
        return (Self.makeStringValidating(scratch.unsafelyUnwrapped, count: count, readable: scratchCapacity), count)
    }

    /// Decodes the string starting at `start`, whose bytes before `firstEscape` are already
    /// checked, into the scratch buffer without checking that its other bytes are well-formed
    /// UTF-8; returns the number of decoded bytes and moves `index` past the closing quote, or
    /// returns nil, leaving `index` alone, at anything else that is wrong.
    ///
    /// Each step stores a whole word of input into the buffer before looking at it, and only
    /// the bytes up to the first quote, backslash or control character count. The buffer
    /// always has room for such a store, since the decoded text is never longer than the text
    /// read so far.
    private mutating func decodeEscapedStringUnchecked(from start: Int, firstEscape: Int) -> Int? {
        var written = firstEscape &- start
        var target = scratchStarting(with: start, count: written)
        var capacity = scratchCapacity
        var offset = firstEscape
        while true {
            // Eight bytes per step while they are plain. Input and output advance together
            // here, so one bound covers both the end of the input and the room in the buffer.
            words: while true {
                let limit = min(end, offset &+ (capacity &- written))
                while offset &+ 8 <= limit {
                    let word = load64(at: offset)
                    UnsafeMutableRawPointer(target + written).storeBytes(of: word.littleEndian, as: UInt64.self)
                    let mask = Self.delimiters(in: word)
                    if mask != 0 {
                        let plain = mask.trailingZeroBitCount &>> 3
                        offset &+= plain
                        written &+= plain
                        break words
                    }
                    offset &+= 8
                    written &+= 8
                }
                guard offset &+ 8 <= end else { break }
                target = scratchRoom(keeping: written, for: written &+ 8)
                capacity = scratchCapacity
            }
            guard offset < end else { return nil }
            if written &+ 8 > capacity {
                target = scratchRoom(keeping: written, for: written &+ 8)
                capacity = scratchCapacity
            }
            let byte = base[offset]
            if byte == UInt8(ascii: "\\") {
                guard let next = decodeEscapeUnchecked(at: offset, into: target, written: &written) else {
                    return nil
                }
                offset = next
                continue
            }
            if byte == UInt8(ascii: "\"") {
                index = offset &+ 1
                return written
            }
            guard byte >= 0x20 else { return nil }
            // Fewer than eight bytes are left in the input.
            target[written] = byte
            offset &+= 1
            written &+= 1
        }
    }

    /// A mask whose lowest set bit marks the first byte of `word` (in memory order) that is a
    /// quote, a backslash or a control character; zero when there is none. Bytes of
    /// multi-byte sequences are not marked.
    ///
    /// As in `specialBytes(in:)`, only the lowest set bit is meaningful.
    @inline(__always)
    private static func delimiters(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let isQuote = (quotes &- ones) & ~quotes
        let isBackslash = (backslashes &- ones) & ~backslashes
        let isControl = (word &- ones &* 0x20) & ~word
        return (isQuote | isBackslash | isControl) & highBits
    }

    /// Decodes the escape whose backslash is at `backslash` like `decodeEscape`, but returns
    /// nil instead of reporting what is wrong with it.
    @inline(__always)
    private func decodeEscapeUnchecked(
        at backslash: Int,
        into target: UnsafeMutablePointer<UInt8>,
        written: inout Int
    ) -> Int? {
        let next = backslash &+ 1
        guard next < end else { return nil }
        let byte = base[next]
        let decoded: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
            decoded = byte
        case UInt8(ascii: "n"):
            decoded = 0x0A
        case UInt8(ascii: "t"):
            decoded = 0x09
        case UInt8(ascii: "r"):
            decoded = 0x0D
        case UInt8(ascii: "b"):
            decoded = 0x08
        case UInt8(ascii: "f"):
            decoded = 0x0C
        case UInt8(ascii: "u"):
            guard end &- backslash >= 6, let unit = Self.hexValue(of: load32(at: backslash &+ 2)) else {
                return nil
            }
            var scalar = unit
            var after = backslash &+ 6
            if unit & 0xF800 == 0xD800 {
                // A high surrogate followed by `\u` and a low one.
                guard unit < 0xDC00, end &- after >= 6,
                    base[after] == UInt8(ascii: "\\"), base[after &+ 1] == UInt8(ascii: "u"),
                    let low = Self.hexValue(of: load32(at: after &+ 2)), low & 0xFC00 == 0xDC00
                else { return nil }
                scalar = 0x1_0000 &+ ((unit &- 0xD800) &<< 10) &+ (low &- 0xDC00)
                after &+= 6
            }
            written &+= Self.storeUTF8(scalar, at: UnsafeMutableRawPointer(target + written))
            return after
        default:
            return nil
        }
        target[written] = decoded
        written &+= 1
        return backslash &+ 2
    }

    /// Decodes the string starting at `start`, whose bytes before `firstEscape` are already
    /// checked, into the scratch buffer with every check; returns the number of decoded bytes
    /// and moves `index` past the closing quote.
    ///
    /// Copying and checking go together: each step stores a whole word of input into the
    /// buffer before looking at it, and only the bytes up to the first special one count.
    /// The buffer always has room for such a store, since the decoded text is never longer
    /// than the text read so far.
    private mutating func decodeEscapedString(from start: Int, firstEscape: Int) throws(WireError) -> Int {
        var written = firstEscape &- start
        var target = scratchStarting(with: start, count: written)
        var capacity = scratchCapacity
        var offset = firstEscape
        while true {
            // Eight bytes per step while they are plain.
            while offset &+ 8 <= end {
                if written &+ 8 > capacity {
                    target = scratchRoom(keeping: written, for: written &+ 8)
                    capacity = scratchCapacity
                }
                let word = load64(at: offset)
                UnsafeMutableRawPointer(target + written).storeBytes(of: word.littleEndian, as: UInt64.self)
                let mask = Self.specialBytes(in: word)
                if mask != 0 {
                    let plain = mask.trailingZeroBitCount &>> 3
                    offset &+= plain
                    written &+= plain
                    break
                }
                offset &+= 8
                written &+= 8
            }
            guard offset < end else {
                try ParseDiagnostics.unexpectedEnd("in string, expected a closing '\"'", in: input)
            }
            if written &+ 8 > capacity {
                target = scratchRoom(keeping: written, for: written &+ 8)
                capacity = scratchCapacity
            }
            var byte = base[offset]
            if byte >= 0x80 {
                // A run of non-ASCII text, sequence after sequence (see `scanStringRun`).
                repeat {
                    if end &- offset >= 4 {
                        let word = load32(at: offset)
                        let length = UTF8Sequence.validLength(word: word)
                        guard length != 0 else {
                            try ParseDiagnostics.invalidUTF8(at: offset, in: input)
                        }
                        UnsafeMutableRawPointer(target + written).storeBytes(of: word.littleEndian, as: UInt32.self)
                        offset &+= length
                        written &+= length
                    } else {
                        let length = UTF8Sequence.validLength(at: offset, base: base, end: end)
                        guard length != 0 else {
                            try ParseDiagnostics.invalidUTF8(at: offset, in: input)
                        }
                        (target + written).update(from: base + offset, count: length)
                        offset &+= length
                        written &+= length
                    }
                    guard offset < end else {
                        try ParseDiagnostics.unexpectedEnd("in string, expected a closing '\"'", in: input)
                    }
                    if written &+ 8 > capacity {
                        target = scratchRoom(keeping: written, for: written &+ 8)
                        capacity = scratchCapacity
                    }
                    byte = base[offset]
                } while byte >= 0x80
                continue
            }
            if byte == UInt8(ascii: "\\") {
                offset = try decodeEscape(at: offset, into: target, written: &written)
                continue
            }
            if byte == UInt8(ascii: "\"") {
                index = offset &+ 1
                return written
            }
            if byte < 0x20 {
                try ParseDiagnostics.controlCharacter(at: offset, in: input)
            }
            target[written] = byte
            offset &+= 1
            written &+= 1
        }
    }

    /// Starts a decoded string in the scratch buffer with the `count` plain input bytes at
    /// `start`, and returns the buffer, which has room for a word-sized store past them.
    @inline(__always)
    private mutating func scratchStarting(with start: Int, count: Int) -> UnsafeMutablePointer<UInt8> {
        let target = scratchRoom(keeping: 0, for: count &+ 8)
        if count > 0 {
            if count < 16 {
                Self.copySmall(base + start, to: UnsafeMutableRawPointer(target), count: count)
            } else {
                UnsafeMutableRawPointer(target).copyMemory(from: base + start, byteCount: count)
            }
        }
        return target
    }

    /// The scratch buffer, with room for at least `needed` bytes of which the first `count`
    /// are kept.
    @inline(__always)
    private mutating func scratchRoom(keeping count: Int, for needed: Int) -> UnsafeMutablePointer<UInt8> {
        if needed <= scratchCapacity {
            return scratch.unsafelyUnwrapped
        }
        return growScratch(keeping: count, for: needed)
    }

    /// Replaces the scratch buffer with one at least twice as large and large enough for
    /// `needed` bytes, keeping its first `count` bytes.
    @inline(never)
    private mutating func growScratch(keeping count: Int, for needed: Int) -> UnsafeMutablePointer<UInt8> {
        var capacity = max(scratchCapacity &* 2, 256)
        while capacity < needed {
            capacity &*= 2
        }
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
        if let old = scratch {
            storage.update(from: old, count: count)
            old.deinitialize(count: scratchCapacity)
            old.deallocate()
        }
        scratch = storage
        scratchCapacity = capacity
        return storage
    }

    /// Decodes the escape whose backslash is at `backslash` into `target + written`, which has
    /// room for eight bytes, and advances `written`; returns the offset after the escape.
    @inline(__always)
    private func decodeEscape(
        at backslash: Int,
        into target: UnsafeMutablePointer<UInt8>,
        written: inout Int
    ) throws(WireError) -> Int {
        let next = backslash &+ 1
        guard next < end else {
            try ParseDiagnostics.unexpectedEnd("in escape sequence", in: input)
        }
        let byte = base[next]
        let decoded: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
            decoded = byte
        case UInt8(ascii: "n"):
            decoded = 0x0A
        case UInt8(ascii: "t"):
            decoded = 0x09
        case UInt8(ascii: "r"):
            decoded = 0x0D
        case UInt8(ascii: "b"):
            decoded = 0x08
        case UInt8(ascii: "f"):
            decoded = 0x0C
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: backslash, into: target, written: &written)
        default:
            try ParseDiagnostics.invalidEscape(at: next, in: input)
        }
        target[written] = decoded
        written &+= 1
        return backslash &+ 2
    }

    /// Decodes `\uXXXX`, or a surrogate pair written as two such escapes, like `decodeEscape`.
    @inline(__always)
    private func decodeUnicodeEscape(
        at backslash: Int,
        into target: UnsafeMutablePointer<UInt8>,
        written: inout Int
    ) throws(WireError) -> Int {
        let unit = try readHex4(at: backslash &+ 2)
        var next = backslash &+ 6
        var scalar = unit
        if unit & 0xF800 == 0xD800, replacesLoneSurrogates {
            if unit < 0xDC00, let low = pairedLowSurrogate(at: next) {
                scalar = 0x1_0000 &+ ((unit &- 0xD800) &<< 10) &+ (low &- 0xDC00)
                next &+= 6
            } else {
                scalar = 0xFFFD
            }
        } else if unit & 0xF800 == 0xD800 {
            guard unit < 0xDC00 else {
                try ParseDiagnostics.loneSurrogate(unit, at: backslash, in: input)
            }
            guard next < end else {
                try ParseDiagnostics.unexpectedEnd("in string, expected a closing '\"'", in: input)
            }
            guard base[next] == UInt8(ascii: "\\") else {
                try ParseDiagnostics.loneSurrogate(unit, at: backslash, in: input)
            }
            guard next &+ 1 < end else {
                try ParseDiagnostics.unexpectedEnd("in escape sequence", in: input)
            }
            guard base[next &+ 1] == UInt8(ascii: "u") else {
                try ParseDiagnostics.loneSurrogate(unit, at: backslash, in: input)
            }
            let low = try readHex4(at: next &+ 2)
            guard low & 0xFC00 == 0xDC00 else {
                try ParseDiagnostics.loneSurrogate(unit, at: backslash, in: input)
            }
            scalar = 0x1_0000 &+ ((unit &- 0xD800) &<< 10) &+ (low &- 0xDC00)
            next &+= 6
        }
        written &+= Self.storeUTF8(scalar, at: UnsafeMutableRawPointer(target + written))
        return next
    }

    /// The low surrogate of a `\uXXXX` escape starting at `position`, or nil when there is
    /// no complete escape there or it names anything else; never fails, so that whatever is
    /// there is read (and reported) as the next part of the string.
    @inline(__always)
    private func pairedLowSurrogate(at position: Int) -> UInt32? {
        guard end &- position >= 6, base[position] == UInt8(ascii: "\\"),
            base[position &+ 1] == UInt8(ascii: "u"),
            let low = Self.hexValue(of: load32(at: position &+ 2)), low & 0xFC00 == 0xDC00
        else { return nil }
        return low
    }

    /// The value of the four hexadecimal digits at `position`.
    ///
    /// All four are checked and converted at once as one word; when that fails, or the input
    /// ends first, a digit-by-digit reading finds the first offending byte.
    @inline(__always)
    private func readHex4(at position: Int) throws(WireError) -> UInt32 {
        if end &- position >= 4, let value = Self.hexValue(of: load32(at: position)) {
            return value
        }
        return try readHex4Slowly(at: position)
    }

    /// The value of the four hexadecimal digits in `word` (first digit lowest), or nil when
    /// one of its bytes is not a hexadecimal digit.
    @inline(__always)
    private static func hexValue(of word: UInt32) -> UInt32? {
        let ones: UInt32 = 0x0101_0101
        let highBits: UInt32 = 0x8080_8080
        guard word & highBits == 0 else { return nil }
        // For bytes below 0x80, adding 0x80 - low sets a byte's top bit when it is at least
        // `low`, and adding 0x7F - high when it is above `high`; no carry crosses bytes.
        let folded = word | ones &* 0x20
        let isDigit = (word &+ ones &* (0x80 - 0x30)) & ~(word &+ ones &* (0x7F - 0x39))
        let isLetter = (folded &+ ones &* (0x80 - 0x61)) & ~(folded &+ ones &* (0x7F - 0x66))
        guard (isDigit | isLetter) & highBits == highBits else { return nil }
        // Letters have bit 6 set: their low four bits plus 9 give 10 to 15.
        let nibbles = (word & (ones &* 0x0F)) &+ (word &>> 6 & ones) &* 9
        return (nibbles & 0x0F) &<< 12 | (nibbles &>> 8 & 0x0F) &<< 8
            | (nibbles &>> 16 & 0x0F) &<< 4 | nibbles &>> 24
    }

    /// `readHex4` one digit at a time, with the error for the first byte that is not a digit.
    private func readHex4Slowly(at position: Int) throws(WireError) -> UInt32 {
        var value: UInt32 = 0
        for offset in position..<(position &+ 4) {
            guard offset < end else {
                try ParseDiagnostics.unexpectedEnd("in \\u escape", in: input)
            }
            let byte = base[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                digit = byte &- (UInt8(ascii: "a") &- 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                digit = byte &- (UInt8(ascii: "A") &- 10)
            default:
                try ParseDiagnostics.invalidHexDigit(at: offset, in: input)
            }
            value = value &<< 4 | UInt32(digit)
        }
        return value
    }

    /// Writes the UTF-8 encoding of `scalar` (at most U+10FFFF, not a surrogate) with one store
    /// of up to four bytes; returns the length of the encoding. Four bytes must be writable.
    @inline(__always)
    private static func storeUTF8(_ scalar: UInt32, at target: UnsafeMutableRawPointer) -> Int {
        if scalar < 0x80 {
            target.storeBytes(of: UInt8(truncatingIfNeeded: scalar), as: UInt8.self)
            return 1
        }
        if scalar < 0x800 {
            let bytes = (0xC0 | scalar &>> 6) | (0x80 | scalar & 0x3F) &<< 8
            target.storeBytes(of: UInt16(truncatingIfNeeded: bytes).littleEndian, as: UInt16.self)
            return 2
        }
        if scalar < 0x1_0000 {
            let bytes = (0xE0 | scalar &>> 12) | (0x80 | scalar &>> 6 & 0x3F) &<< 8
                | (0x80 | scalar & 0x3F) &<< 16
            target.storeBytes(of: bytes.littleEndian, as: UInt32.self)
            return 3
        }
        let bytes = (0xF0 | scalar &>> 18) | (0x80 | scalar &>> 12 & 0x3F) &<< 8
            | (0x80 | scalar &>> 6 & 0x3F) &<< 16 | (0x80 | scalar & 0x3F) &<< 24
        target.storeBytes(of: bytes.littleEndian, as: UInt32.self)
        return 4
    }

    // MARK: - Numbers

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// Reads the number starting at `index` (a digit or `-`).
    private mutating func parseNumber() throws(WireError) -> JSONValue {
        let start = index
        var offset = start
        let negative = base[offset] == UInt8(ascii: "-")
        if negative {
            offset &+= 1
            guard offset < end else {
                try ParseDiagnostics.unexpectedEnd("in number, expected a digit after '-'", in: input)
            }
        }

        // Integer part: `0` or a non-zero digit followed by digits. The mantissa collects every
        // digit of the integer and fraction parts; it is exact while at most 19 are significant.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        let integerStart = offset
        let first = base[offset]
        if first == UInt8(ascii: "0") {
            offset &+= 1
            if offset < end, Self.isDigit(base[offset]) {
                try ParseDiagnostics.invalidNumber("leading zero in number", at: integerStart, in: input)
            }
        } else if Self.isDigit(first) {
            repeat {
                mantissa = mantissa &* 10 &+ UInt64(base[offset] &- UInt8(ascii: "0"))
                offset &+= 1
            } while offset < end && Self.isDigit(base[offset])
            significantDigits = offset &- integerStart
        } else {
            try ParseDiagnostics.invalidNumber("expected a digit after '-'", at: offset, in: input)
        }
        let integerDigits = offset &- integerStart

        var isInteger = true
        var fractionDigits = 0
        if offset < end, base[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset &+= 1
            guard offset < end else {
                try ParseDiagnostics.unexpectedEnd("in number, expected a digit after '.'", in: input)
            }
            guard Self.isDigit(base[offset]) else {
                try ParseDiagnostics.invalidNumber("expected a digit after the decimal point", at: offset, in: input)
            }
            let fractionStart = offset
            if mantissa == 0 {
                // Zeros right after "0." are not significant.
                while offset < end, base[offset] == UInt8(ascii: "0") {
                    offset &+= 1
                }
            }
            let significantStart = offset
            while offset < end {
                let digit = base[offset] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                offset &+= 1
            }
            fractionDigits = offset &- fractionStart
            significantDigits &+= offset &- significantStart
        }

        // 64-bit whatever the platform's `Int` (see the saturation below).
        var exponent: Int64 = 0
        if offset < end, base[offset] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            offset &+= 1
            guard offset < end else {
                try ParseDiagnostics.unexpectedEnd("in number, expected a digit in the exponent", in: input)
            }
            var exponentNegative = false
            if base[offset] == UInt8(ascii: "-") || base[offset] == UInt8(ascii: "+") {
                exponentNegative = base[offset] == UInt8(ascii: "-")
                offset &+= 1
                guard offset < end else {
                    try ParseDiagnostics.unexpectedEnd("in number, expected a digit in the exponent", in: input)
                }
            }
            guard Self.isDigit(base[offset]) else {
                try ParseDiagnostics.invalidNumber("expected a digit in the exponent", at: offset, in: input)
            }
            repeat {
                // Saturates at 10^17: beyond the length of any input, so that subtracting the
                // count of fraction digits below still leaves a saturated exponent far outside
                // the fast path's range, and at most 10^18 + 9, so neither step can wrap.
                if exponent < DecimalConversion.exponentSaturation {
                    exponent = exponent &* 10 &+ Int64(base[offset] &- UInt8(ascii: "0"))
                }
                offset &+= 1
            } while offset < end && Self.isDigit(base[offset])
            if exponentNegative {
                exponent = -exponent
            }
        }
        index = offset

        if isInteger, integerDigits <= 19 {
            if !negative {
                if mantissa <= UInt64(Int64.max) {
                    return .integer(Int64(truncatingIfNeeded: mantissa))
                }
            } else if mantissa == 0 {
                return .double(-0.0)
            } else if mantissa <= UInt64(Int64.max) &+ 1 {
                return .integer(Int64(truncatingIfNeeded: 0 &- mantissa))
            }
        }
        if significantDigits == 0 {
            return .double(negative ? -0.0 : 0.0)
        }
        if significantDigits <= 19,
            let magnitude = DecimalConversion.fastPath(
                mantissa: mantissa, exponent: exponent &- Int64(truncatingIfNeeded: fractionDigits))
        {
            return .double(negative ? -magnitude : magnitude)
        }
        let value = DecimalConversion.double(
            fromLiteral: UnsafeBufferPointer(start: base + start, count: offset &- start)
        )
        guard value.isFinite else {
            try ParseDiagnostics.numberOutOfRange(from: start, to: offset, in: input)
        }
        return .double(value)
    }
}

import RpcWire

/// Reads the two frames a realtime connection carries most, an `ActionRequest` and an
/// `ActionResponse`, when they are written in the compact form ``RivetMessageCodec`` writes
/// them (members in that order, no white space, the id as `["$BigInt","n"]`), without parsing
/// the envelope into a tree: only the arguments or the output are parsed.
///
/// It answers `nil` for anything else, and for anything it is unsure of (escapes or non-ASCII
/// bytes in the name, a value that does not parse on its own); the codec then reads the frame
/// with the general parser, which accepts every form and gives the errors. Where it answers, it
/// answers what the general parser would have read: the value is parsed with the same
/// configuration, its depth limit lowered by the three objects around it.
enum CompactFrameReader {
    /// `{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","`
    private static let requestHead: [UInt8] = Array(#"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt",""#.utf8)
    /// `{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","`
    private static let responseHead: [UInt8] = Array(#"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt",""#.utf8)
    /// `"],"name":"`
    private static let nameKey: [UInt8] = Array(#""],"name":""#.utf8)
    /// `","args":`
    private static let argsKey: [UInt8] = Array(#"","args":"#.utf8)
    /// `"],"output":`
    private static let outputKey: [UInt8] = Array(#""],"output":"#.utf8)
    /// The closing braces of `val`, `body` and the envelope.
    private static let tail: [UInt8] = Array("}}}".utf8)
    /// How many objects enclose the arguments or the output.
    private static let enclosingDepth = 3

    /// The id, action name and wire arguments (compat forms not yet read) of a compact
    /// `ActionRequest`.
    static func actionRequest(_ bytes: [UInt8]) -> (id: UInt64, name: String, args: [JSONValue])? {
        bytes.withUnsafeBufferPointer { input -> (id: UInt64, name: String, args: [JSONValue])? in
            var cursor = Cursor(input: input)
            guard cursor.fitsParser, cursor.skip(requestHead), let id = cursor.digits(), cursor.skip(nameKey),
                let name = cursor.plainString(), cursor.skip(argsKey),
                case .array(let args)? = cursor.valueBeforeTail(tail, depth: enclosingDepth)
            else { return nil }
            return (id, name, args)
        }
    }

    /// The id and wire output (compat forms not yet read) of a compact `ActionResponse`.
    static func actionResponse(_ bytes: [UInt8]) -> (id: UInt64, output: JSONValue)? {
        bytes.withUnsafeBufferPointer { input -> (id: UInt64, output: JSONValue)? in
            var cursor = Cursor(input: input)
            guard cursor.fitsParser, cursor.skip(responseHead), let id = cursor.digits(), cursor.skip(outputKey),
                let output = cursor.valueBeforeTail(tail, depth: enclosingDepth)
            else { return nil }
            return (id, output)
        }
    }

    /// A position in a frame's bytes.
    private struct Cursor {
        let input: UnsafeBufferPointer<UInt8>
        var index = 0

        init(input: UnsafeBufferPointer<UInt8>) {
            self.input = input
        }

        /// Whether the general parser would take a frame of this size at all.
        var fitsParser: Bool {
            input.count <= JSONParser.Configuration.default.maxInputSize
        }

        /// Moves past `literal` when the bytes here are exactly it.
        mutating func skip(_ literal: [UInt8]) -> Bool {
            guard input.count - index >= literal.count else { return false }
            for (offset, byte) in literal.enumerated() where input[index + offset] != byte {
                return false
            }
            index += literal.count
            return true
        }

        /// One or more decimal digits that fit in `UInt64`.
        mutating func digits() -> UInt64? {
            var value: UInt64 = 0
            let start = index
            while index < input.count, input[index] >= UInt8(ascii: "0"), input[index] <= UInt8(ascii: "9") {
                let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) = times.addingReportingOverflow(UInt64(input[index] - UInt8(ascii: "0")))
                guard !overflowTimes, !overflowSum else { return nil }
                value = sum
                index += 1
            }
            return index > start ? value : nil
        }

        /// Printable ASCII up to the next quote, with no backslash (the quote is not consumed).
        mutating func plainString() -> String? {
            let start = index
            while index < input.count, input[index] != UInt8(ascii: "\"") {
                let byte = input[index]
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            guard index < input.count else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: input[start ..< index]), as: UTF8.self)
        }

        /// The JSON value between here and `tail`, which must end the bytes; `nil` when those
        /// bytes are not exactly one value.
        func valueBeforeTail(_ tail: [UInt8], depth: Int) -> JSONValue? {
            let end = input.count - tail.count
            guard end > index else { return nil }
            for (offset, byte) in tail.enumerated() where input[end + offset] != byte {
                return nil
            }
            var configuration = JSONParser.Configuration.default
            guard configuration.maxDepth > depth else { return nil }
            configuration.maxDepth -= depth
            let slice = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[index ..< end]))
            return try? JSONParser(configuration: configuration).parse(slice)
        }
    }
}

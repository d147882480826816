public import RpcWire

/// The properties the JSON parser and serializer must keep on any input.
///
/// For any bytes:
/// - parsing from raw memory and from an array agree, value for value and error for error, and
///   an error's location lies within the input;
///
/// and when the bytes parse to a value:
/// - the value serializes, and its text parses back to an equivalent value: same members in the
///   same order, and the same numbers exactly (the double `2.0` may come back as the integer
///   `2`, but never as another number; see ``JSONEquivalence/Numbers/exact``);
/// - serializing that value again gives the same bytes;
/// - the canonical (sorted) text parses back to an equivalent value, and equivalent values
///   have identical canonical text;
/// - a value equal to the original hashes alike.
public enum JSONRoundTrip {
    /// Checks every property on `input`, trapping on the first one that fails.
    public static func check(_ input: UnsafeRawBufferPointer) {
        let parser = JSONParser()
        let fromMemory = Result { () throws(WireError) -> JSONValue in try parser.parse(input) }
        let fromArray = Result { () throws(WireError) -> JSONValue in try parser.parse(Array(input)) }
        for case .failure(let error) in [fromMemory, fromArray] {
            Invariant.locationIsInBounds(error, count: input.count)
        }
        guard let value = Invariant.agree(fromMemory, fromArray, "parsing") else { return }
        checkWritesBack(value)
    }

    /// Checks the serializer properties on a parsed `value`.
    public static func checkWritesBack(_ value: JSONValue) {
        let parser = JSONParser()
        let plain = JSONSerializer()
        let canonical = JSONSerializer(configuration: .init(canonical: true))

        let text = Invariant.mustSucceed("serializing a parsed value") { () throws(WireError) in
            try plain.serialize(value)
        }
        let again = Invariant.mustSucceed("parsing serialized text \(Excerpt.of(text))") { () throws(WireError) in
            try parser.parse(text)
        }
        if let difference = JSONEquivalence.difference(value, again, sameOrder: true, numbers: .exact) {
            preconditionFailure("the text \(Excerpt.of(text)) reads back changed, \(difference)")
        }
        let rewritten = Invariant.mustSucceed("serializing a reparsed value") { () throws(WireError) in
            try plain.serialize(again)
        }
        precondition(rewritten == text, "writing is not stable: \(Excerpt.of(text)) then \(Excerpt.of(rewritten))")

        let canonicalText = Invariant.mustSucceed("serializing canonically") { () throws(WireError) in
            try canonical.serialize(value)
        }
        let canonicalAgain = Invariant.mustSucceed("parsing canonical text \(Excerpt.of(canonicalText))") {
            () throws(WireError) in try parser.parse(canonicalText)
        }
        if let difference = JSONEquivalence.difference(value, canonicalAgain, sameOrder: false, numbers: .exact) {
            preconditionFailure("the canonical text \(Excerpt.of(canonicalText)) reads back changed, \(difference)")
        }
        let canonicalOfReparsed = Invariant.mustSucceed("serializing canonically") { () throws(WireError) in
            try canonical.serialize(again)
        }
        precondition(
            canonicalOfReparsed == canonicalText,
            "equivalent values have different canonical text: \(Excerpt.of(canonicalText)) and \(Excerpt.of(canonicalOfReparsed))")

        if canonicalAgain == value {
            precondition(canonicalAgain.hashValue == value.hashValue, "equal values hash differently")
        }
    }
}

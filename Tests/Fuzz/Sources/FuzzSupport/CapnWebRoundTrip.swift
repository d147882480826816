public import RpcWire

/// The properties the Cap'n Web codec must keep on any input.
///
/// For any bytes:
/// - decoding from raw memory and from an array agree, message for message and error for error,
///   and an error's location lies within the input;
/// - decoding the bytes agrees with parsing them to a JSON tree and decoding the tree, message
///   for message (the codec reads common messages without a tree, and must read them the same);
///
/// and when the bytes decode to a message:
/// - the message encodes, and its text decodes back to the same message, which encodes to the
///   same bytes; numbers compare as JavaScript numbers, since every number on this wire is one
///   (the double `2.0` is written `2` and comes back as the integer `2`, see
///   ``JSONEquivalence/Numbers/javaScript``);
/// - the message encodes to a JSON tree too; that tree decodes to exactly the same message, and
///   serializing it gives exactly the bytes of the text encoder.
public enum CapnWebRoundTrip {
    /// Checks every property on `input`, trapping on the first one that fails.
    public static func check(_ input: UnsafeRawBufferPointer) {
        let codec = CapnWebCodec()
        let fromMemory = Result { () throws(WireError) -> CapnWebMessage in try codec.decode(input) }
        let fromArray = Result { () throws(WireError) -> CapnWebMessage in try codec.decode(Array(input)) }
        for case .failure(let error) in [fromMemory, fromArray] {
            Invariant.locationIsInBounds(error, count: input.count)
        }
        let parser = JSONParser(
            configuration: JSONParser.Configuration(
                maxDepth: codec.configuration.maxDepth, maxInputSize: codec.configuration.maxMessageSize))
        let throughTree = Result { () throws(WireError) -> CapnWebMessage in try codec.decode(parser.parse(input)) }
        switch (fromMemory, throughTree) {
        case (.success(let direct), .success(let tree)):
            precondition(direct == tree, "decoding gives \(direct), the JSON tree gives \(tree)")
        case (.success(let direct), .failure(let error)):
            preconditionFailure("decoding gives \(direct), the JSON tree fails with \(error)")
        case (.failure(let error), .success(let tree)):
            preconditionFailure("decoding fails with \(error), the JSON tree gives \(tree)")
        case (.failure, .failure):
            break
        }
        guard let message = Invariant.agree(fromMemory, fromArray, "decoding") else { return }
        checkEncodesBack(message)
    }

    /// Checks the encoder properties on a decoded `message`.
    public static func checkEncodesBack(_ message: CapnWebMessage) {
        let codec = CapnWebCodec()
        let encoded = Invariant.mustSucceed("encoding the decoded message \(message)") { () throws(WireError) in
            try codec.encode(message)
        }
        let decodedAgain = Invariant.mustSucceed("decoding the encoded text \(Excerpt.of(encoded))") {
            () throws(WireError) in try codec.decode(encoded)
        }
        let encodedAgain = Invariant.mustSucceed("encoding the re-decoded message") { () throws(WireError) in
            try codec.encode(decodedAgain)
        }
        precondition(
            encodedAgain == encoded,
            "encoding is not stable: \(Excerpt.of(encoded)) then \(Excerpt.of(encodedAgain))")

        let tree = Invariant.mustSucceed("encoding the message as a JSON tree") { () throws(WireError) in
            try codec.encodeToJSON(message)
        }
        let decodedFromTree = Invariant.mustSucceed("decoding the JSON tree \(Excerpt.of(tree.description))") {
            () throws(WireError) in try codec.decode(tree)
        }
        precondition(
            decodedFromTree == message,
            "the JSON tree \(Excerpt.of(tree.description)) decodes as \(decodedFromTree), not \(message)")
        let treeText = Invariant.mustSucceed("serializing the JSON tree") { () throws(WireError) in
            try JSONSerializer().serialize(tree)
        }
        precondition(
            treeText == encoded,
            "the text and tree encoders disagree: \(Excerpt.of(encoded)) and \(Excerpt.of(treeText))")

        if decodedAgain != message {
            let treeAgain = Invariant.mustSucceed("encoding the re-decoded message as a JSON tree") {
                () throws(WireError) in try codec.encodeToJSON(decodedAgain)
            }
            if let difference = JSONEquivalence.difference(tree, treeAgain, sameOrder: true, numbers: .javaScript) {
                preconditionFailure("the text \(Excerpt.of(encoded)) decodes as another message, \(difference)")
            }
        }
    }
}

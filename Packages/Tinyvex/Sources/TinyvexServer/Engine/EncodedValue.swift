import RpcWire
import Synchronization

/// A query value encoded once as JSON text and shared by every subscriber it is queued for,
/// so that a value waiting on many subscriptions (of one connection or many) is held once.
final class EncodedValue: Sendable {
    /// The value's JSON text.
    let text: [UInt8]
    /// The value's text split for `transitionChunk`s, each piece already written as a JSON
    /// string, made by the first subscriber that needs it and shared by the others.
    private let chunks = Mutex<(maxBytes: Int, pieces: [[UInt8]])?>(nil)

    init(text: [UInt8]) {
        self.text = text
    }

    /// Encodes `value`; a value JSON cannot write (a non-finite number) is sent as `null`.
    convenience init(_ value: JSONValue) {
        self.init(text: (try? JSONSerializer().serialize(value)) ?? Array("null".utf8))
    }

    /// The text in pieces of at most `maxBytes` (never inside a character), each written as a
    /// JSON string literal; computed once per size and shared by every connection.
    func chunkLiterals(maxBytes: Int) -> [[UInt8]] {
        if let cached = chunks.withLock({ $0 }), cached.maxBytes == maxBytes { return cached.pieces }
        let pieces = Wire.split(text, maxBytes: maxBytes).map { piece in
            Wire.literal(String(decoding: piece, as: UTF8.self))
        }
        chunks.withLock { $0 = (maxBytes, pieces) }
        return pieces
    }
}

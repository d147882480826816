import RpcWire

/// A query value encoded once as JSON text and shared by every subscriber it is queued for,
/// so that a value waiting on many subscriptions (of one connection or many) is held once.
final class EncodedValue: Sendable {
    /// The value's JSON text.
    let text: [UInt8]

    init(text: [UInt8]) {
        self.text = text
    }

    /// Encodes `value`; a value JSON cannot write (a non-finite number) is sent as `null`.
    convenience init(_ value: JSONValue) {
        self.init(text: (try? JSONSerializer().serialize(value)) ?? Array("null".utf8))
    }
}

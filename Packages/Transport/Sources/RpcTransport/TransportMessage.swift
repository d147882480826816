/// One message carried by a transport: text (UTF-8) or binary.
///
/// Text messages keep their UTF-8 bytes, so codecs can parse them without a copy into a `String`.
public struct TransportMessage: Sendable, Hashable {
    /// Whether a message is text or binary.
    public enum Kind: Sendable, Hashable {
        /// A text message; its bytes are valid UTF-8.
        case text
        /// A binary message.
        case binary
    }

    /// Text or binary.
    public var kind: Kind
    /// The payload; UTF-8 for text.
    public var bytes: [UInt8]

    /// Creates a message from its kind and bytes. For ``Kind/text`` the bytes must be UTF-8.
    public init(kind: Kind, bytes: [UInt8]) {
        self.kind = kind
        self.bytes = bytes
    }

    /// A text message holding `string`.
    public static func text(_ string: String) -> TransportMessage {
        TransportMessage(kind: .text, bytes: Array(string.utf8))
    }

    /// A text message holding UTF-8 bytes the caller knows to be valid.
    public static func text(utf8 bytes: [UInt8]) -> TransportMessage {
        TransportMessage(kind: .text, bytes: bytes)
    }

    /// A binary message.
    public static func binary(_ bytes: [UInt8]) -> TransportMessage {
        TransportMessage(kind: .binary, bytes: bytes)
    }

    /// The text of a text message; `nil` for a binary one.
    public var text: String? {
        kind == .text ? String(decoding: bytes, as: UTF8.self) : nil
    }
}

import RpcTransport

/// The generated message contents the peer script also produces (`pattern_text` and
/// `pattern_binary` there), so either side can check what the other received.
enum MessagePattern {
    /// The pieces text is made of: ASCII and two-, three- and four-byte UTF-8 sequences, so that
    /// fragmenting a message splits characters across frames.
    private static let textPieces: [[UInt8]] = ["abcdefghij", "\u{e9}", "xyz", "\u{2713}", "0123", "\u{1d11e}", " "]
        .map { Array($0.utf8) }

    /// Valid UTF-8 of exactly `size` bytes: the pieces in turn while they fit, then dots.
    static func text(_ size: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var index = 0
        while true {
            let piece = textPieces[index % textPieces.count]
            guard bytes.count + piece.count <= size else { break }
            bytes.append(contentsOf: piece)
            index += 1
        }
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "."), count: size - bytes.count))
        return bytes
    }

    /// Exactly `size` bytes; byte `i` is `(i * 167 + 13) mod 256`.
    static func binary(_ size: Int) -> [UInt8] {
        (0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }
    }

    /// A message of `kind` and `size` bytes.
    static func message(_ kind: PayloadKind, size: Int) -> TransportMessage {
        switch kind {
        case .text: .text(utf8: text(size))
        case .binary: .binary(binary(size))
        }
    }

    /// The peer script's spelling of the same message, for `--send`.
    static func spec(_ kind: PayloadKind, size: Int) -> String {
        (kind == .text ? "text:" : "binary:") + String(size)
    }

    /// The sizes every echo test covers: empty, the largest 7-bit length, the smallest 16-bit
    /// length, the smallest 64-bit length and a 4 MiB message that is sent in fragments.
    static let echoSizes = [0, 125, 126, 65_536, 4 * 1024 * 1024]
}

/// Text or binary, as a test argument.
enum PayloadKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case text
    case binary

    /// The transport's kind.
    var transportKind: TransportMessage.Kind {
        self == .text ? .text : .binary
    }

    /// `text` or `binary`.
    var description: String { rawValue }
}

import RpcTransport

/// A validated list of ALPN protocol names, most preferred first.
///
/// Immutable, so an OpenSSL selection callback may read it from any thread.
final class ApplicationProtocolList: Sendable {
    /// The names as bytes, in preference order.
    let names: [[UInt8]]

    /// The list in its wire format: each name prefixed with its one-byte length.
    let wireFormat: [UInt8]

    /// Validates the names: each must be 1 to 255 bytes long.
    init(_ protocols: [String]) throws(TransportError) {
        var names: [[UInt8]] = []
        var wireFormat: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            guard let length = UInt8(exactly: bytes.count), length > 0 else {
                throw TransportError(
                    code: .tlsConfigurationInvalid,
                    message: "the application protocol name '\(name)' must be 1 to 255 bytes long"
                )
            }
            names.append(bytes)
            wireFormat.append(length)
            wireFormat.append(contentsOf: bytes)
        }
        self.names = names
        self.wireFormat = wireFormat
    }

    /// The outcome of choosing among a client's offers.
    enum Selection: Equatable {
        /// The offer at `offset` (just past its length byte), `length` bytes long, was chosen.
        case selected(offset: Int, length: UInt8)
        /// The client offered none of these names.
        case noOverlap
        /// The client's list is not in the wire format.
        case malformed
    }

    /// Picks the first name of this list that `offer` (a client's wire-format list) contains.
    func select(from offer: UnsafeBufferPointer<UInt8>) -> Selection {
        var offers: [(offset: Int, length: Int)] = []
        var index = 0
        while index < offer.count {
            let length = Int(offer[index])
            let start = index + 1
            guard length > 0, start + length <= offer.count else { return .malformed }
            offers.append((start, length))
            index = start + length
        }
        for name in names {
            for candidate in offers where candidate.length == name.count {
                if offer[candidate.offset..<(candidate.offset + candidate.length)].elementsEqual(name) {
                    return .selected(offset: candidate.offset, length: UInt8(truncatingIfNeeded: candidate.length))
                }
            }
        }
        return .noOverlap
    }
}

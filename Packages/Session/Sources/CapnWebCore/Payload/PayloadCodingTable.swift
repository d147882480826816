internal import RpcWire
import Synchronization

/// The side table that carries what JSON cannot hold through a Codable pass: references
/// (stubs, streams), nested ``RpcPayload`` values, dates and bytes.
///
/// ``RpcPayload/init(encoding:)`` and ``RpcPayload/decode(_:)`` put one table in the
/// encoder's or decoder's `userInfo` under ``userInfoKey``. In the JSON tree a table entry
/// appears as a *marker*, an object with the single member `{"\u{0}capnweb": index}`.
///
/// - Encoding: a special value's `encode(to:)` appends the payload it stands for and writes
///   the marker; converting the JSON tree back to a payload swaps each marker for its entry.
/// - Decoding: converting the payload to JSON appends each reference and writes the marker
///   in its place; the reference's `init(from:)` reads the marker and fetches the entry.
///   ``root`` is the payload being decoded, so that a nested ``RpcPayload`` can be taken
///   from it exactly (see ``RpcPayload/init(from:)``).
final class PayloadCodingTable: Sendable {
    /// The `userInfo` key under which the table travels (the initializer never fails in
    /// practice; it is optional only because `CodingUserInfoKey.init(rawValue:)` is).
    static let userInfoKey = CodingUserInfoKey(rawValue: "capnweb.payloadCodingTable")

    /// The only member key of a marker object.
    static let markerKey = "\u{0}capnweb"

    /// The payload being decoded; `nil` when encoding.
    let root: RpcPayload?
    private let entries = Mutex<[RpcPayload]>([])

    /// A table for encoding, or for decoding `root`.
    init(root: RpcPayload? = nil) {
        self.root = root
    }

    /// Stores `payload` and returns its index.
    func append(_ payload: RpcPayload) -> Int {
        entries.withLock { entries in
            entries.append(payload)
            return entries.count - 1
        }
    }

    /// Every entry, by index.
    func snapshot() -> [RpcPayload] {
        entries.withLock { $0 }
    }

    /// The entry at `index`, or `nil` when there is none.
    func entry(at index: Int) -> RpcPayload? {
        entries.withLock { $0.indices.contains(index) ? $0[index] : nil }
    }

    /// The table of `userInfo`, if it holds one.
    static func current(in userInfo: [CodingUserInfoKey: Any]) -> PayloadCodingTable? {
        guard let key = userInfoKey else { return nil }
        return userInfo[key] as? PayloadCodingTable
    }

    /// `userInfo` holding this table.
    var userInfo: [CodingUserInfoKey: any Sendable] {
        guard let key = Self.userInfoKey else { return [:] }
        return [key: self]
    }
}

// MARK: - Markers

extension PayloadCodingTable {
    /// The coding key of a marker's member.
    struct MarkerKey: CodingKey {
        var stringValue: String { PayloadCodingTable.markerKey }
        var intValue: Int? { nil }

        init() {}

        init?(stringValue: String) {
            guard stringValue == PayloadCodingTable.markerKey else { return nil }
        }

        init?(intValue: Int) { nil }
    }

    /// Stores `payload` and writes its marker into `encoder`.
    func encodeMarker(for payload: RpcPayload, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MarkerKey.self)
        try container.encode(append(payload), forKey: MarkerKey())
    }

    /// The entry whose marker `decoder` holds.
    ///
    /// - Throws: `DecodingError.typeMismatch` for `type` when the value is not a marker (the
    ///   payload held something else where a `type` was expected).
    func decodeMarker<T>(as type: T.Type, from decoder: any Decoder) throws -> RpcPayload {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            throw DecodingError.valueNotFound(
                T.self,
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "Expected \(T.self) but found null."))
        }
        let value = try container.decode(JSONValue.self)
        guard let index = Self.markerIndex(in: value), let payload = entry(at: index) else {
            throw DecodingError.typeMismatch(
                T.self,
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "Expected \(T.self) but found \(value.kindName)."))
        }
        return payload
    }

    /// The index held by a marker object; `nil` when `value` is not one.
    static func markerIndex(in value: JSONValue) -> Int? {
        guard case .object(let object) = value, object.count == 1, object[0].key == markerKey else { return nil }
        return object[0].value.intValue
    }
}

// MARK: - Errors

extension PayloadCodingTable {
    /// The error for encoding `value` with an encoder other than ``RpcPayload/init(encoding:)``'s.
    static func foreignEncoder(_ value: Any, _ encoder: any Encoder) -> EncodingError {
        EncodingError.invalidValue(
            value,
            EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "\(type(of: value)) is a live reference and can only be encoded into an RpcPayload, with RpcPayload(encoding:)."))
    }

    /// The error for decoding `type` with a decoder other than ``RpcPayload/decode(_:)``'s.
    static func foreignDecoder<T>(_ type: T.Type, _ decoder: any Decoder) -> DecodingError {
        DecodingError.typeMismatch(
            T.self,
            DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "\(T.self) is a live reference and can only be decoded from an RpcPayload, with RpcPayload.decode(_:)."))
    }

    /// The error for a table entry that is not the reference `type` expects.
    static func mismatch<T>(_ type: T.Type, found payload: RpcPayload, _ decoder: any Decoder) -> DecodingError {
        DecodingError.typeMismatch(
            T.self,
            DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "Expected \(T.self) but found \(payload.codingKindName)."))
    }
}

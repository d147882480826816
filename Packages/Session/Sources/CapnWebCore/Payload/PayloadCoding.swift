#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import RpcWire

/// The Codable coders behind ``RpcPayload/init(encoding:)`` and ``RpcPayload/decode(_:)``,
/// and the text of their errors.
enum PayloadCoding {
    /// The encoder's strategies; each use adds its ``PayloadCodingTable`` as `userInfo`.
    ///
    /// A `Date` or `Data` is stored in the table as ``RpcPayload/date(_:)`` or
    /// ``RpcPayload/bytes(_:type:)``; a non-finite number is written as a sentinel string
    /// that ``PayloadJSONConversion`` turns back into a double.
    private static let baseEncoder: JSONValueEncoder = {
        var encoder = JSONValueEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            try table(of: encoder).encodeMarker(for: .date(date.timeIntervalSince1970 * 1000), to: encoder)
        }
        encoder.dataEncodingStrategy = .custom { data, encoder in
            try table(of: encoder).encodeMarker(for: .bytes([UInt8](data)), to: encoder)
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: PayloadJSONConversion.NonFinite.positiveInfinity,
            negativeInfinity: PayloadJSONConversion.NonFinite.negativeInfinity,
            nan: PayloadJSONConversion.NonFinite.nan)
        return encoder
    }()

    /// The decoder's strategies; each use adds its ``PayloadCodingTable`` as `userInfo`.
    ///
    /// Dates arrive as milliseconds, non-finite numbers as `"Infinity"`, `"-Infinity"` and
    /// `"NaN"`, and `Data` as a bytes marker or base64 text.
    private static let baseDecoder: JSONValueDecoder = {
        var decoder = JSONValueDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.dataDecodingStrategy = .custom { decoder in try decodeData(from: decoder) }
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }()

    /// An encoder writing references into `table`.
    static func encoder(with table: PayloadCodingTable) -> JSONValueEncoder {
        var encoder = baseEncoder
        encoder.userInfo = table.userInfo
        return encoder
    }

    /// A decoder reading references from `table`.
    static func decoder(with table: PayloadCodingTable) -> JSONValueDecoder {
        var decoder = baseDecoder
        decoder.userInfo = table.userInfo
        return decoder
    }

    private static func table(of encoder: any Encoder) throws -> PayloadCodingTable {
        guard let table = PayloadCodingTable.current(in: encoder.userInfo) else {
            throw EncodingError.invalidValue(
                encoder.codingPath,
                EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "The payload table is missing."))
        }
        return table
    }

    /// `Data` from a bytes marker or from base64 text.
    private static func decodeData(from decoder: any Decoder) throws -> Data {
        let value = try decoder.singleValueContainer().decode(JSONValue.self)
        if case .string(let text) = value, let bytes = Base64.decode(text) {
            return Data(bytes)
        }
        if let table = PayloadCodingTable.current(in: decoder.userInfo),
           let index = PayloadCodingTable.markerIndex(in: value),
           case .bytes(let bytes, _)? = table.entry(at: index)
        {
            return Data(bytes)
        }
        let context = DecodingError.Context(
            codingPath: decoder.codingPath, debugDescription: "Expected bytes or base64 text but found \(value.kindName).")
        if value.isNull { throw DecodingError.valueNotFound(Data.self, context) }
        throw DecodingError.typeMismatch(Data.self, context)
    }

    // MARK: - Error text

    /// `location: reason` for an error thrown while encoding or decoding, such as
    /// `items[0].name: Expected to decode String but found integer.`
    static func describe(_ error: any Error) -> String {
        switch error {
        case EncodingError.invalidValue(_, let context):
            return "\(pathText(context.codingPath)): \(context.debugDescription)"
        case DecodingError.typeMismatch(_, let context),
             DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            return "\(pathText(context.codingPath)): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            return "\(pathText(context.codingPath + [key])): \(context.debugDescription)"
        case let failure as PayloadJSONConversion.Failure:
            return "\(failure.pathText): \(failure.message)"
        default:
            return "<root>: \(error)"
        }
    }

    /// A coding path as text: `items[0].name`, or `<root>` for the empty path.
    static func pathText(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "<root>" }
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }
}

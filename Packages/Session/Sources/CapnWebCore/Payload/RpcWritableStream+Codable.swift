extension RpcWritableStream: Codable {
    /// Encodes the stream as a live reference.
    ///
    /// - Throws: `EncodingError.invalidValue` unless the encoder is the one of
    ///   ``RpcPayload/init(encoding:)``: a stream has no form outside a payload.
    public func encode(to encoder: any Encoder) throws {
        guard let table = PayloadCodingTable.current(in: encoder.userInfo) else {
            throw PayloadCodingTable.foreignEncoder(self, encoder)
        }
        try table.encodeMarker(for: .writable(self), to: encoder)
    }
}

extension Decodable where Self: RpcWritableStream {
    /// Decodes the writable stream passed at this place of the payload: the very instance,
    /// not a copy.
    ///
    /// - Throws: `DecodingError.typeMismatch` when the value there is not a writable stream,
    ///   or when the decoder is not the one of ``RpcPayload/decode(_:)``.
    public init(from decoder: any Decoder) throws {
        guard let table = PayloadCodingTable.current(in: decoder.userInfo) else {
            throw PayloadCodingTable.foreignDecoder(Self.self, decoder)
        }
        let payload = try table.decodeMarker(as: Self.self, from: decoder)
        guard case .writable(let stream) = payload, let stream = stream as? Self else {
            throw PayloadCodingTable.mismatch(Self.self, found: payload, decoder)
        }
        self = stream
    }
}

extension RpcStub: Codable {
    /// Encodes the stub as a live reference.
    ///
    /// - Throws: `EncodingError.invalidValue` unless the encoder is the one of
    ///   ``RpcPayload/init(encoding:)``: a stub has no form outside a payload.
    public func encode(to encoder: any Encoder) throws {
        guard let table = PayloadCodingTable.current(in: encoder.userInfo) else {
            throw PayloadCodingTable.foreignEncoder(self, encoder)
        }
        try table.encodeMarker(for: .stub(self), to: encoder)
    }

    /// Decodes the stub passed at this place of the payload.
    ///
    /// - Throws: `DecodingError.typeMismatch` when the value there is not a stub, or when the
    ///   decoder is not the one of ``RpcPayload/decode(_:)``.
    public init(from decoder: any Decoder) throws {
        guard let table = PayloadCodingTable.current(in: decoder.userInfo) else {
            throw PayloadCodingTable.foreignDecoder(RpcStub.self, decoder)
        }
        let payload = try table.decodeMarker(as: RpcStub.self, from: decoder)
        guard case .stub(let stub) = payload else {
            throw PayloadCodingTable.mismatch(RpcStub.self, found: payload, decoder)
        }
        self = stub
    }
}

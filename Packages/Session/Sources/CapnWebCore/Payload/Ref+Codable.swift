extension Ref: Codable {
    /// Encodes the reference's stub as a live reference (see ``RpcStub/encode(to:)``).
    public func encode(to encoder: any Encoder) throws {
        try stub.encode(to: encoder)
    }

    /// Decodes the stub passed at this place of the payload (see ``RpcStub/init(from:)``).
    public init(from decoder: any Decoder) throws {
        self.init(stub: try RpcStub(from: decoder))
    }
}

public import RpcWire

extension ActorError: RpcFailureConvertible {
    /// The catalogue entry of this error: its ``group`` and ``code``.
    public var errorCode: ActorErrorCode { ActorErrorCode(group: group, code: code) }

    /// Creates an error of a catalogue code, for example
    /// `ActorError(.clientDisposed, "the connection was disposed")`.
    public init(_ code: ActorErrorCode, _ message: String = "", metadata: JSONValue? = nil) {
        self.init(group: code.group, code: code.code, message: message, metadata: metadata)
    }

    /// The error as an ``RpcFailure``: the code from ``ActorErrorCode/rpcFailureCode``,
    /// origin ``ActorErrorCode/origin`` (local for the group `client`, remote for every
    /// other), the layer `actors`, the reason `group.code`, the group and code in metadata
    /// `group` and `code`, and this error as the cause (its JSON ``metadata`` stays there).
    public var rpcFailure: RpcFailure {
        let identity = errorCode
        return RpcFailure(
            code: identity.rpcFailureCode, message: message.isEmpty ? description : message, origin: identity.origin,
            metadata: [
                RpcFailure.layerKey: "actors", RpcFailure.reasonKey: identity.description, "group": group, "code": code,
            ],
            cause: self)
    }
}

/// The error part of an ``RpcResponse``.
public struct RpcResponseError: Sendable, Codable, Equatable {
    /// A numeric error code (JSON-RPC style).
    public let code: Int
    /// A description of the failure.
    public let message: String
    /// Extra data about the failure.
    public let data: RpcValue?

    /// Creates an error.
    public init(code: Int, message: String, data: RpcValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }
}

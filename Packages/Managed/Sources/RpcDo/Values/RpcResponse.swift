/// The answer to an ``RpcRequest``: its result or its error.
public struct RpcResponse: Sendable, Codable {
    /// The identifier of the request this answers.
    public let id: String
    /// The result, when the call succeeded.
    public let result: RpcValue?
    /// The error, when the call failed.
    public let error: RpcResponseError?

    /// Creates a response.
    public init(id: String, result: RpcValue? = nil, error: RpcResponseError? = nil) {
        self.id = id
        self.result = result
        self.error = error
    }
}

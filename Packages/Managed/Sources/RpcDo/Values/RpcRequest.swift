#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A call by method name, as ``RpcClient/call(_:params:)`` makes it.
public struct RpcRequest: Sendable, Codable {
    /// The request's identifier, unique per client.
    public let id: String
    /// The method, with dots between path members (`users.get`).
    public let method: String
    /// The positional arguments.
    public let params: [RpcValue]

    /// Creates a request; the identifier defaults to a fresh UUID.
    public init(id: String = UUID().uuidString, method: String, params: [RpcValue] = []) {
        self.id = id
        self.method = method
        self.params = params
    }
}

/// A snapshot of one fetch: the value, the error, and whether it is loading. What
/// ``RpcLoader/state`` returns, and what a SwiftUI property wrapper can project.
public struct RpcFetchState<Value> {
    /// The latest value, if one arrived.
    public var value: Value?
    /// The latest failure, if the last fetch failed.
    public var error: RpcError?
    /// Whether a fetch is in progress.
    public var isLoading: Bool

    /// Creates a snapshot.
    public init(value: Value? = nil, error: RpcError? = nil, isLoading: Bool = false) {
        self.value = value
        self.error = error
        self.isLoading = isLoading
    }

    /// Whether the last fetch failed.
    public var hasError: Bool { error != nil }
}

extension RpcFetchState: Sendable where Value: Sendable {}

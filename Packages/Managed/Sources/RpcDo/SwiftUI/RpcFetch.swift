#if canImport(SwiftUI)
public import SwiftUI

/// A view's remote value, fetched from the environment's ``RpcClient`` (the seed's "Custom
/// Property Wrapper", complete): the wrapped value is the latest value, `$name` its
/// ``RpcFetchState`` (value, error, loading), and `_name.load()` fetches it.
///
/// ```swift
/// struct ProfileName: View {
///     @RpcFetch(\.users.current.profile.displayName) private var name: String?
///
///     var body: some View {
///         Text(name ?? "…")
///             .task { await _name.load() }
///     }
/// }
/// ```
///
/// The logic is ``RpcLoader/load(_:from:)``, which works (and is tested) without SwiftUI.
@MainActor
@propertyWrapper
public struct RpcFetch<T: Decodable & Sendable>: DynamicProperty {
    @Environment(\.rpcClient) private var client
    @State private var loader = RpcLoader<T>()
    private let keyPath: KeyPath<RpcRef<Any>, RpcRef<T>>

    /// Fetches the value at `keyPath` of the client's API, a chain of member reads.
    public init(_ keyPath: KeyPath<RpcRef<Any>, RpcRef<T>>) {
        self.keyPath = keyPath
    }

    /// The latest value, `nil` until one arrived.
    public var wrappedValue: T? {
        loader.value
    }

    /// The value, the last error and whether a fetch is running.
    public var projectedValue: RpcFetchState<T> {
        loader.state
    }

    /// Fetches the value now (from `.task` or `.refreshable`); does nothing without a client in
    /// the environment.
    public func load() async {
        guard let client else { return }
        await loader.load(keyPath, from: client)
    }
}
#endif

#if canImport(SwiftUI)
public import SwiftUI

/// The environment key behind `EnvironmentValues.rpcClient`.
public struct RpcClientKey: EnvironmentKey {
    /// No client until one is injected.
    public static let defaultValue: RpcClient? = nil
}

extension EnvironmentValues {
    /// The RpcDo client injected with `.environment(\.rpcClient, client)`.
    public var rpcClient: RpcClient? {
        get { self[RpcClientKey.self] }
        set { self[RpcClientKey.self] = newValue }
    }
}
#endif

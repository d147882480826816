#if canImport(SwiftUI)
public import SwiftUI

/// Where `@Actor` finds its client: set by `.rivetKit(_:)`, otherwise a client with the
/// default ``ClientConfig``.
private struct RivetKitClientKey: EnvironmentKey {
    static let defaultValue: RivetKitClient? = nil
}

extension EnvironmentValues {
    /// The RivetKit client of this part of the view hierarchy, set by `.rivetKit(_:)`.
    public var rivetKitClient: RivetKitClient? {
        get { self[RivetKitClientKey.self] }
        set { self[RivetKitClientKey.self] = newValue }
    }
}

extension View {
    /// Gives the views below a RivetKit client for `endpoint`, as React's `createRivetKit` does.
    public func rivetKit(_ endpoint: String) -> some View {
        rivetKit(ClientConfig(endpoint: endpoint))
    }

    /// Gives the views below a RivetKit client with `config`.
    public func rivetKit(_ config: ClientConfig) -> some View {
        modifier(RivetKitClientModifier(config: config))
    }
}

/// Keeps one client per configuration for the views below.
private struct RivetKitClientModifier: ViewModifier {
    let config: ClientConfig
    @State private var holder = RivetKitClientHolder()

    func body(content: Content) -> some View {
        content.environment(\.rivetKitClient, holder.client(for: config))
    }
}

/// The client of a `.rivetKit(_:)` modifier, replaced when its configuration changes.
@MainActor
private final class RivetKitClientHolder {
    private var current: RivetKitClient?
    /// The closes of replaced clients, owned by the holder.
    private let closing = OwnedTasks<Int>()

    func client(for config: ClientConfig) -> RivetKitClient {
        if let current, current.config == config { return current }
        if let previous = current {
            closing.spawn { await previous.close() }
        }
        let client = RivetKitClient(config)
        current = client
        return client
    }
}

/// The client `@Actor` uses when no `.rivetKit(_:)` modifier set one.
@MainActor
enum DefaultRivetKitClient {
    static let shared = RivetKitClient(ClientConfig())
}
#endif

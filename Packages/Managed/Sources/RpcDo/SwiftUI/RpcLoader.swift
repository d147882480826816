public import Observation

/// An observable view-model helper that loads one value over RpcDo: SwiftUI views read
/// ``value``, ``error`` and ``isLoading``; ``load(_:)`` runs a fetch and publishes its outcome.
///
/// ```swift
/// @State private var todos = RpcLoader<[Todo]>()
/// …
/// .task { await todos.load { try await client.api.todos.list() } }
/// ```
///
/// Works on every platform (Observation is not tied to SwiftUI). A fetch that throws an
/// error other than ``RpcError`` is reported as ``RpcError/invalidResponse(_:)``; a
/// cancelled fetch keeps the previous value and reports nothing.
@MainActor
@Observable
public final class RpcLoader<Value: Sendable> {
    /// The latest value, if one arrived.
    public private(set) var value: Value?
    /// The failure of the last fetch, if it failed.
    public var error: RpcError?
    /// Whether a fetch is in progress.
    public private(set) var isLoading = false

    /// Creates an empty loader, optionally with a first value.
    public init(value: Value? = nil) {
        self.value = value
    }

    /// The three fields as one snapshot.
    public var state: RpcFetchState<Value> {
        RpcFetchState(value: value, error: error, isLoading: isLoading)
    }

    /// Runs `fetch` and publishes its value or its error.
    public func load(_ fetch: @Sendable () async throws -> Value) async {
        isLoading = true
        error = nil
        defer { isLoading = false }
        do {
            value = try await fetch()
        } catch let failure as RpcError {
            if failure != .cancelled { error = failure }
        } catch is CancellationError {
            return
        } catch {
            self.error = .invalidResponse("\(error)")
        }
    }
}

extension RpcLoader where Value: Decodable {
    /// Loads the remote value at `keyPath` of `client`'s API (a chain of member reads:
    /// `\.users.current.profile`), in one round trip, and publishes it or its error. What
    /// `RpcFetch` runs.
    ///
    /// ```swift
    /// await profile.load(\.users.current.profile, from: client)
    /// ```
    public func load(_ keyPath: KeyPath<RpcRef<Any>, RpcRef<Value>>, from client: RpcClient) async {
        let ref = client.api[keyPath: keyPath]
        await load { try await ref.resolved(as: Value.self) }
    }
}

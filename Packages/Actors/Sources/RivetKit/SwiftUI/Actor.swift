#if canImport(SwiftUI)
public import SwiftUI
import Combine

/// An actor for a view, with React `useActor` semantics: get-or-create identity and a
/// lifecycle driven by `enabled`. Reads its client from `.rivetKit(_:)`.
///
/// ```swift
/// @Actor("counter", key: ["my-counter"]) var counter
/// ```
@MainActor
@propertyWrapper
public struct Actor: DynamicProperty {
    @Environment(\.rivetKitClient) private var client
    @StateObject private var box = ActorObservableBox()
    private let options: ActorOptions

    /// An actor with a one-part key.
    public init(
        _ name: String,
        key: String,
        params: (any Encodable)? = nil,
        createWithInput: (any Encodable)? = nil,
        createInRegion: String? = nil,
        enabled: Bool = true
    ) {
        self.init(
            name, key: [key], params: params, createWithInput: createWithInput, createInRegion: createInRegion,
            enabled: enabled)
    }

    /// An actor with a key of several parts.
    public init(
        _ name: String,
        key: [String],
        params: (any Encodable)? = nil,
        createWithInput: (any Encodable)? = nil,
        createInRegion: String? = nil,
        enabled: Bool = true
    ) {
        options = ActorOptions(
            name: name, key: key, params: params, createWithInput: createWithInput, createInRegion: createInRegion,
            enabled: enabled)
    }

    /// The actor's observable state and operations.
    public var wrappedValue: ActorObservable {
        box.observable(client: client ?? DefaultRivetKitClient.shared, options: options)
    }

    /// The same observable, for `$counter`.
    public var projectedValue: ActorObservable { wrappedValue }
}

/// Holds the observable of one `@Actor` across view updates and forwards its changes.
@MainActor
final class ActorObservableBox: ObservableObject {
    private var current: ActorObservable?
    private var forwarding: AnyCancellable?

    func observable(client: RivetKitClient, options: ActorOptions) -> ActorObservable {
        if let current, current.client === client {
            current.update(options)
            return current
        }
        current?.release()
        let observable = ActorObservable(client: client, options: options)
        forwarding = observable.objectWillChange.sink { [weak self] _ in self?.objectWillChange.send() }
        current = observable
        return observable
    }
}
#endif

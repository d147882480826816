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
    private let encodingError: ActorError?

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
        var encodingError: ActorError?
        func encode(_ value: (any Encodable)?) -> JSONValue? {
            guard let value else { return nil }
            do {
                return try ActorValues.encode([value]).first
            } catch {
                encodingError = ActorError(.clientConfigError, error.message)
                return nil
            }
        }
        options = ActorOptions(
            name: name, key: key, params: encode(params), createWithInput: encode(createWithInput),
            createInRegion: createInRegion, enabled: enabled)
        self.encodingError = encodingError
    }

    /// The actor's observable state and operations.
    public var wrappedValue: ActorObservable {
        box.observable(client: client ?? DefaultRivetKitClient.shared, options: options, error: encodingError)
    }

    /// The same observable, for `$counter`.
    public var projectedValue: ActorObservable { wrappedValue }
}

/// Holds the observable of one `@Actor` across view updates and forwards its changes.
@MainActor
final class ActorObservableBox: ObservableObject {
    private var current: ActorObservable?
    private var forwarding: AnyCancellable?

    func observable(client: RivetKitClient, options: ActorOptions, error: ActorError?) -> ActorObservable {
        if let current, current.client === client {
            current.update(options)
            return current
        }
        current?.release()
        let observable = ActorObservable(client: client, options: options)
        if let error { observable.report(error) }
        forwarding = observable.objectWillChange.sink { [weak self] _ in self?.objectWillChange.send() }
        current = observable
        return observable
    }
}
#endif

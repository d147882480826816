#if canImport(SwiftUI)
public import SwiftUI
import Combine

extension View {
    /// Runs `perform` for every event `event` without arguments.
    public func onActorEvent(_ actor: ActorObservable, _ event: String, perform: @escaping () -> Void) -> some View {
        modifier(
            ActorEventModifier(actor: actor, event: event) { [weak actor] args in
                if actor?.decodeEvent(event, args, arity: 0, { _ in () }) != nil { perform() }
            })
    }

    /// Runs `perform` with the one argument of every event `event`.
    public func onActorEvent<A: Decodable>(
        _ actor: ActorObservable, _ event: String, perform: @escaping (A) -> Void
    ) -> some View {
        modifier(
            ActorEventModifier(actor: actor, event: event) { [weak actor] args in
                if let a = actor?.decodeEvent(event, args, arity: 1, { try ActorValues.decode(A.self, from: $0[0]) }) {
                    perform(a)
                }
            })
    }

    /// Runs `perform` with the two arguments of every event `event`.
    public func onActorEvent<A: Decodable, B: Decodable>(
        _ actor: ActorObservable, _ event: String, perform: @escaping (A, B) -> Void
    ) -> some View {
        modifier(
            ActorEventModifier(actor: actor, event: event) { [weak actor] args in
                let decoded = actor?.decodeEvent(event, args, arity: 2) { args in
                    (try ActorValues.decode(A.self, from: args[0]), try ActorValues.decode(B.self, from: args[1]))
                }
                if let pair = decoded { perform(pair.0, pair.1) }
            })
    }

    /// Runs `perform` with the three arguments of every event `event`.
    public func onActorEvent<A: Decodable, B: Decodable, C: Decodable>(
        _ actor: ActorObservable, _ event: String, perform: @escaping (A, B, C) -> Void
    ) -> some View {
        modifier(
            ActorEventModifier(actor: actor, event: event) { [weak actor] args in
                let decoded = actor?.decodeEvent(event, args, arity: 3) { args in
                    (
                        try ActorValues.decode(A.self, from: args[0]), try ActorValues.decode(B.self, from: args[1]),
                        try ActorValues.decode(C.self, from: args[2])
                    )
                }
                if let triple = decoded { perform(triple.0, triple.1, triple.2) }
            })
    }

    /// Runs `perform` with the raw arguments of every event `event`.
    public func onActorEvent(
        _ actor: ActorObservable, _ event: String, perform: @escaping ([JSONValue]) -> Void
    ) -> some View {
        modifier(ActorEventModifier(actor: actor, event: event, handler: perform))
    }

    /// Runs `perform` once with each new connection, configuration or decode error of `actor`
    /// (``ActorObservable/newErrors``): never again for one it was given, nor for the error
    /// current when the view subscribes.
    public func onActorError(_ actor: ActorObservable, perform: @escaping (ActorError) -> Void) -> some View {
        onReceive(actor.newErrors) { perform($0) }
    }
}

/// Listens to one event of an actor while the view is on screen.
private struct ActorEventModifier: ViewModifier {
    let actor: ActorObservable
    let event: String
    let handler: ([JSONValue]) -> Void
    @State private var token: UInt64?

    func body(content: Content) -> some View {
        content
            .onAppear {
                if token == nil { token = actor.addListener(event, handler) }
            }
            .onDisappear {
                if let token { actor.removeListener(token) }
                token = nil
            }
    }
}
#endif

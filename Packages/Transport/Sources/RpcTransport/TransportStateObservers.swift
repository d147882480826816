/// The `stateUpdates()` streams of one transport.
///
/// Kept inside the transport's own locked state, so that reading the current state and
/// registering a new stream happen atomically; a stream therefore never misses the final
/// `closed`. Continuations are taken out under the lock and fed outside it.
package struct TransportStateObservers: Sendable {
    /// One observer's end of its stream.
    package typealias Continuation = AsyncStream<TransportState>.Continuation

    private var continuations: [UInt64: Continuation] = [:]
    private var nextID: UInt64 = 0

    /// Creates an empty set.
    package init() {}

    /// Makes a stream that starts with the current state and finishes after `closed`.
    ///
    /// - Parameter register: Runs once with the new stream's continuation; under the owner's
    ///   lock it calls ``add(_:unlessClosed:onTermination:)`` and returns the current state.
    package static func makeStream(
        register: (Continuation) -> TransportState
    ) -> AsyncStream<TransportState> {
        let (stream, continuation) = AsyncStream<TransportState>.makeStream()
        let current = register(continuation)
        continuation.yield(current)
        if current.isClosed {
            continuation.finish()
        }
        return stream
    }

    /// Adds `continuation` unless `current` is already closed; `onTermination` gets the id to
    /// pass to ``remove(_:)`` when the consumer stops listening.
    package mutating func add(
        _ continuation: Continuation,
        unlessClosed current: TransportState,
        onTermination: @escaping @Sendable (UInt64) -> Void
    ) {
        guard !current.isClosed else { return }
        let id = nextID
        nextID += 1
        continuations[id] = continuation
        continuation.onTermination = { _ in onTermination(id) }
    }

    /// Forgets the observer with `id`.
    package mutating func remove(_ id: UInt64) {
        continuations.removeValue(forKey: id)
    }

    /// The current observers, to be told of a state change outside the lock.
    package var all: [Continuation] { Array(continuations.values) }

    /// Takes every observer out, to be told of the final state with ``finish(_:with:)``.
    package mutating func removeAll() -> [Continuation] {
        defer { continuations = [:] }
        return Array(continuations.values)
    }

    /// Tells `observers` the final state and ends their streams.
    package static func finish(_ observers: [Continuation], with closure: TransportClosure) {
        for observer in observers {
            observer.yield(.closed(closure))
            observer.finish()
        }
    }
}

/// The `stateUpdates()` streams of one transport.
///
/// A stream never misses the final `closed`: registration and reading the current state happen
/// under the transport's lock, and a stream made after `closed` gets it and finishes at once.
package typealias TransportStateObservers = StateObservers<TransportState>

extension StateObservers where Element == TransportState {
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
        add(continuation, onTermination: onTermination)
    }

    /// Tells `observers` the final state and ends their streams.
    package static func finish(_ observers: [Continuation], with closure: TransportClosure) {
        for observer in observers {
            observer.yield(.closed(closure))
            observer.finish()
        }
    }
}

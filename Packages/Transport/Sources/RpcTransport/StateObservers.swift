/// The streams that observe one state machine: a transport's states, a session's or a managed
/// connection's connection states.
///
/// Keep it inside the owner's locked state, so that reading the current state and registering a
/// new stream happen in one critical section and no stream misses a change. Take the
/// continuations out under the lock (``all``, ``removeAll()``) and feed them outside it.
///
/// ```swift
/// let (stream, continuation) = AsyncStream<ConnectionState>.makeStream()
/// let current = lock.withLock { state in
///     state.observers.add(continuation) { [weak self] id in
///         _ = self?.lock.withLock { $0.observers.remove(id) }
///     }
///     return state.current
/// }
/// continuation.yield(current)
/// ```
@_spi(RpcImplementation)
public struct StateObservers<Element: Sendable>: Sendable {
    /// One observer's end of its stream.
    public typealias Continuation = AsyncStream<Element>.Continuation

    private var continuations: [UInt64: Continuation] = [:]
    private var nextID: UInt64 = 0

    /// Creates an empty set.
    public init() {}

    /// Adds `continuation`; `onTermination` gets the id to pass to ``remove(_:)`` when the
    /// consumer stops listening.
    public mutating func add(_ continuation: Continuation, onTermination: @escaping @Sendable (UInt64) -> Void) {
        let id = nextID
        nextID += 1
        continuations[id] = continuation
        continuation.onTermination = { _ in onTermination(id) }
    }

    /// Forgets the observer with `id`.
    public mutating func remove(_ id: UInt64) {
        continuations.removeValue(forKey: id)
    }

    /// The current observers, to be told of a change outside the lock.
    public var all: [Continuation] { Array(continuations.values) }

    /// Takes every observer out, to be told of the final state and finished outside the lock.
    public mutating func removeAll() -> [Continuation] {
        defer { continuations = [:] }
        return Array(continuations.values)
    }
}

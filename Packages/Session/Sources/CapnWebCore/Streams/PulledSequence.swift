import Synchronization

/// Reads an async sequence in the task that asks for its next element, for a stream made with
/// `AsyncThrowingStream(unfolding:)`: nothing reads ahead, so no task of its own runs, and a
/// reader that stops (or is cancelled) stops the reading with it.
///
/// A stream has one reader: a second task asking while another waits for an element is
/// refused with an error.
package final class PulledSequence<Base: AsyncSequence & Sendable, Element: Sendable>: @unchecked Sendable {
    // Sendable by hand: `iterator` is only touched by the task that holds `reading`, and the
    // atomic's acquiring and releasing order one holder's accesses before the next one's.
    private let base: Base
    private let transform: @Sendable (Base.Element) throws -> Element
    private var iterator: Base.AsyncIterator?
    private let reading = Atomic<Bool>(false)

    /// Reads `base`, each element passed through `transform`.
    package init(_ base: Base, transform: @escaping @Sendable (Base.Element) throws -> Element) {
        self.base = base
        self.transform = transform
    }

    /// The next element, transformed; `nil` once `base` has ended.
    ///
    /// - Throws: What `base` or `transform` throws, or a local rejection when another task is
    ///   reading at the same time.
    package func next() async throws -> Element? {
        guard reading.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw RpcError.rejectedLocally("a stream is read by one task at a time")
        }
        defer { reading.store(false, ordering: .releasing) }
        var current = iterator ?? base.makeAsyncIterator()
        defer { iterator = current }
        guard let element = try await current.next() else { return nil }
        return try transform(element)
    }
}

public import Dispatch
import Synchronization
#if canImport(Combine)
import Combine
#else
import OpenCombine
import OpenCombineDispatch
#endif

/// Where a ``TinyvexClient``'s publishers deliver: the values and completions of the
/// publisher form of `subscribe(_:params:as:)` and the states of
/// ``TinyvexClient/connectionState``.
///
/// The default, ``main``, delivers on the main queue, which is the main actor's: a `sink` written
/// in top-level code, in a `@MainActor` view model or in a SwiftUI view runs where it was
/// written, on every platform. Values keep their order and a mutation returns only after its
/// new values were delivered. On Linux the main queue may be drained by a thread other than
/// the first one: check it with `dispatchPrecondition(condition: .onQueue(.main))`. The main queue must be served: top-level code that awaits, an
/// app, or `dispatchMain()` serve it; a program whose main thread blocks never receives values
/// and should pick ``queue(_:)`` or ``immediate``. The async streams are not affected: they
/// deliver to whoever iterates them.
public struct TinyvexDelivery: Sendable {
    enum Kind: Sendable {
        case queue(DispatchQueue)
        case immediate
    }

    let kind: Kind

    /// The main queue (the main actor): the default.
    public static var main: TinyvexDelivery { TinyvexDelivery(kind: .queue(.main)) }

    /// A serial dispatch queue of the caller's; values keep their order only on a serial queue.
    public static func queue(_ queue: DispatchQueue) -> TinyvexDelivery {
        TinyvexDelivery(kind: .queue(queue))
    }

    /// The thread that received the value from the connection, with no hop: the cheapest, for
    /// subscribers that move values themselves (`receive(on:)`) or touch no isolated state.
    public static var immediate: TinyvexDelivery { TinyvexDelivery(kind: .immediate) }
}

/// Moves a client's publisher events to its ``TinyvexDelivery`` (`receive(on:)` its queue, so
/// every event, a new subscriber's first value included, arrives there in order), and lets a
/// mutation or `close()` wait until what it caused was delivered.
final class Deliverer: Sendable {
    let delivery: TinyvexDelivery
    /// Publisher subscriptions of live queries that have not ended or been cancelled.
    private let livePublishers = Atomic<Int>(0)

    init(_ delivery: TinyvexDelivery) {
        self.delivery = delivery
    }

    /// `publisher` delivering on the queue, or as it is when delivery is immediate.
    func deliver<P: Publisher>(_ publisher: P) -> AnyPublisher<P.Output, P.Failure> {
        switch delivery.kind {
        case .immediate:
            return publisher.eraseToAnyPublisher()
        case .queue(let queue):
            #if canImport(Combine)
            return publisher.receive(on: queue).eraseToAnyPublisher()
            #else
            return publisher.receive(on: queue.ocombine).eraseToAnyPublisher()
            #endif
        }
    }

    /// Counts a live query's publisher subscription from its start to its end.
    func publisherStarted() {
        livePublishers.add(1, ordering: .relaxed)
    }

    /// See ``publisherStarted()``.
    func publisherEnded() {
        livePublishers.subtract(1, ordering: .relaxed)
    }

    /// Whether a live query's publisher may still have events on their way.
    var hasLivePublishers: Bool {
        livePublishers.load(ordering: .relaxed) > 0
    }

    /// Returns once every event handed to the queue before this call has been delivered (one
    /// more turn of the serial queue); at once when delivery is immediate or, unless `force`,
    /// when no live query has a publisher subscriber (so a client of async streams never
    /// depends on the queue being served).
    func drain(force: Bool = false) async {
        guard case .queue(let queue) = delivery.kind, force || hasLivePublishers else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}

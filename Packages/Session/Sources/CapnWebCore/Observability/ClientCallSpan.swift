import RpcTransport
import Synchronization
import Tracing

/// The client span of one call sent to the peer: ended once, with the call's outcome when its
/// answer settles, or plainly when the answer is let go unsettled (a pipelined call whose result
/// nobody asked for is never answered).
final class ClientCallSpan: Sendable {
    private let span: any Span
    private let ended = Atomic<Bool>(false)

    init(_ span: any Span) {
        self.span = span
    }

    /// Ends the span with the call's outcome; does nothing the second time.
    func end(_ settlement: Settlement) {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if case .failure(let rejection) = settlement {
            let error = rejection.rpcError
            span.recordFailure(code: SessionObservation.code(of: rejection), message: error.description, error: error)
        }
        span.end()
    }

    deinit {
        if !ended.load(ordering: .acquiring) { span.end() }
    }
}

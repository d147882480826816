import RpcTransportNIO
import Synchronization

/// The bytes of answers one realtime connection has been given in the current read burst.
///
/// The transport stops reading a connection whose outbound buffer is full and cuts it past its
/// hard limit, but both are checked only once a burst of frames has been handled and its writes
/// flushed: a burst of small requests for large answers would otherwise have every answer made
/// and buffered first (hundreds of megabytes for one peer that reads nothing). Past `limit`
/// bytes in one burst, the answers that follow are refused with a small error frame instead;
/// the count starts again when the burst's writes have been flushed.
final class OutboundBudget: Sendable {
    /// The most bytes of answers queued in one burst.
    let limit: Int

    private struct State {
        var bytes = 0
        var resetScheduled = false
    }

    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Counts `bytes` more for the current burst; `false` when they would pass the limit (a
    /// first answer is always taken: it is within the message limit already).
    func reserve(_ bytes: Int, on transport: any MessageTransport) -> Bool {
        let (admitted, schedule) = state.withLock { state -> (Bool, Bool) in
            let (total, overflow) = state.bytes.addingReportingOverflow(bytes)
            guard state.bytes == 0 || (!overflow && total <= limit) else { return (false, false) }
            state.bytes = overflow ? .max : total
            defer { state.resetScheduled = true }
            return (true, !state.resetScheduled)
        }
        if schedule {
            // Outside a burst (an answer after a suspension) this runs at once.
            transport.afterInboundBurst { [self] in
                state.withLock { state in
                    state.bytes = 0
                    state.resetScheduled = false
                }
            }
        }
        return admitted
    }
}

internal import RpcWire

/// The rules of ``RpcLimits/maxPendingOutputBytes``: how much room an answer has before it is
/// built, and the words of a refusal.
enum OutputBudget {
    /// Answers up to this size are never refused: the rejection would be as large.
    static let alwaysSent = 1024

    /// `a + b`, saturating at `Int.max`.
    static func sum(_ a: Int, _ b: Int) -> Int {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : total
    }

    /// The count of written answer bytes at which a reset is asked for: small enough that
    /// small answers never keep it from happening, large enough that a burst of small answers
    /// asks for none (a reset costs a closure).
    static func resetThreshold(_ limits: RpcLimits) -> Int {
        max(1, min(1024 * 1024, limits.maxPendingOutputBytes / 4))
    }

    /// How many bytes an answer may take: the message limit, or what is left of the output
    /// budget when that is less. `pending` is what the budget holds already.
    static func room(_ limits: RpcLimits, pending: Int) -> Int {
        let (left, overflow) = limits.maxPendingOutputBytes.subtractingReportingOverflow(pending)
        let budget = overflow ? 0 : max(0, left)
        return max(alwaysSent, min(limits.maxMessageSize, budget))
    }

    /// "the result" or "the rejection", for an answer message.
    static func subject(of message: CapnWebMessage) -> String {
        if case .reject = message { return "the rejection" }
        return "the result"
    }

    /// The reason an answer estimated at more than `size` bytes is refused before it is built.
    static func refusal(rejecting: Bool, size: Int, pending: Int, limits: RpcLimits) -> String {
        let subject = rejecting ? "the rejection" : "the result"
        if size > limits.maxMessageSize {
            return "\(subject) is too large to send: its message would be over the limit of \(limits.maxMessageSize) bytes"
        }
        return pendingRefusal(size: size, pending: pending, limit: limits.maxPendingOutputBytes, subject: subject)
    }

    /// The reason an answer of `size` bytes is refused because `pending` bytes of answers wait
    /// to be written already.
    static func pendingRefusal(size: Int, pending: Int, limit: Int, subject: String = "the result") -> String {
        "\(subject) cannot be sent now: \(pending) bytes of answers are waiting to be written, and this "
            + "answer (at least \(size) bytes) would pass the limit of \(limit) (maxPendingOutputBytes)"
    }
}

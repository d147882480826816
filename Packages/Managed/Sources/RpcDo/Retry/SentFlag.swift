import Synchronization

/// Whether one attempt of a call reached the transport: an attempt that never did is always
/// safe to make again; one that did is repeated only when the call is safe to repeat.
public final class SentFlag: Sendable {
    private let flag = Atomic(false)

    /// Creates a flag for a new attempt, not sent yet.
    public init() {}

    /// Marks the attempt as sent.
    public func set() {
        flag.store(true, ordering: .relaxed)
    }

    /// Whether the attempt was sent.
    public var value: Bool {
        flag.load(ordering: .relaxed)
    }
}

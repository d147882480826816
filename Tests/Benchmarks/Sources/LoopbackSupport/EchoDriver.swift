/// The client side of one benchmark connection: sends the message and waits for echoes.
public protocol EchoDriver: Sendable {
    /// Sends `count` messages one at a time, each after the echo of the previous one arrived,
    /// and returns the round-trip time of each in nanoseconds.
    func sequential(count: Int) async throws -> [Int64]

    /// Sends `total` messages keeping `window` of them outstanding (a new one goes out as each
    /// echo arrives) and returns the time from the first send to the last echo.
    func pipelined(total: Int, window: Int) async throws -> Duration

    /// Closes the connection.
    func close() async
}

/// The bookkeeping both drivers share, advanced on each echo on the connection's event loop.
public struct EchoProgress {
    /// Creates an idle progress.
    public init() {}

    /// What is being measured.
    public enum Mode: Sendable {
        case idle
        case sequential
        case pipelined
    }

    /// What to do after an echo.
    public enum Step: Sendable {
        /// Send the next message.
        case send
        /// Nothing to send now.
        case wait
        /// The measurement is complete.
        case finished
    }

    public var mode = Mode.idle
    /// Messages still to send.
    public var toSend = 0
    /// Echoes still to receive.
    public var toReceive = 0
    /// When the message in flight was sent (sequential) or the first one (pipelined).
    public var startedAt = ContinuousClock.now
    /// When the last echo arrived (pipelined).
    public var finishedAt = ContinuousClock.now
    /// Round-trip times in nanoseconds (sequential).
    public var samples: [Int64] = []

    /// Prepares a sequential measurement; the caller sends the first message.
    public mutating func beginSequential(count: Int) {
        mode = .sequential
        toSend = count - 1
        toReceive = count
        samples = []
        samples.reserveCapacity(count)
        startedAt = ContinuousClock.now
    }

    /// Prepares a pipelined measurement; the caller sends the first `window` messages.
    public mutating func beginPipelined(total: Int, window: Int) {
        mode = .pipelined
        toSend = total - window
        toReceive = total
        startedAt = ContinuousClock.now
    }

    /// Accounts for an echo that arrived at `now`.
    public mutating func echoArrived(at now: ContinuousClock.Instant) -> Step {
        switch mode {
        case .idle:
            return .wait
        case .sequential:
            samples.append(Self.nanoseconds(now - startedAt))
            toReceive -= 1
            guard toSend > 0 else {
                mode = .idle
                return .finished
            }
            toSend -= 1
            startedAt = ContinuousClock.now
            return .send
        case .pipelined:
            toReceive -= 1
            if toSend > 0 {
                toSend -= 1
                return .send
            }
            guard toReceive == 0 else { return .wait }
            finishedAt = now
            mode = .idle
            return .finished
        }
    }

    /// `duration` in whole nanoseconds.
    public static func nanoseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}

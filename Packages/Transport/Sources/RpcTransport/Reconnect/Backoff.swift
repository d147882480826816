/// Exponential backoff with optional full jitter: how long to wait before each retry.
///
/// The ceiling for attempt *n* (starting at 1) is `initialDelay × multiplier^(n-1)`, capped at
/// ``maxDelay``. With ``Jitter-swift.enum/full`` the actual delay is drawn uniformly from zero to
/// that ceiling, which spreads reconnecting clients apart after a server restart.
///
/// ```swift
/// let backoff = Backoff(initialDelay: .milliseconds(100), maxDelay: .seconds(10))
/// let wait = backoff.delay(forAttempt: 3)   // somewhere in 0...400 ms
/// ```
public struct Backoff: Sendable, Hashable {
    /// How the delay is randomised.
    public enum Jitter: Sendable, Hashable {
        /// Always wait the full ceiling.
        case none
        /// Wait a uniformly random time between zero and the ceiling.
        case full
    }

    /// The ceiling of the first retry. Default 100 ms.
    public var initialDelay: Duration
    /// The largest ceiling. Default 10 s.
    public var maxDelay: Duration
    /// The growth factor between attempts. Default 2; values below 1 are treated as 1.
    public var multiplier: Double
    /// The randomisation. Default ``Jitter-swift.enum/full``.
    public var jitter: Jitter

    /// Creates a backoff.
    public init(
        initialDelay: Duration = .milliseconds(100),
        maxDelay: Duration = .seconds(10),
        multiplier: Double = 2,
        jitter: Jitter = .full
    ) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The ceiling for `attempt` (1-based), before jitter.
    public func ceiling(forAttempt attempt: Int) -> Duration {
        let initial = Self.seconds(initialDelay)
        let maximum = Self.seconds(maxDelay)
        guard initial > 0, maximum > 0 else { return .zero }
        // In floating point, so that no attempt number (`Int.min` included) can overflow.
        let exponent = max(0, Double(attempt) - 1)
        let grown = initial * Self.power(max(1, multiplier), exponent)
        return .seconds(min(grown.isFinite ? grown : maximum, maximum))
    }

    /// The delay before `attempt` (1-based), drawn with the system random number generator.
    public func delay(forAttempt attempt: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(forAttempt: attempt, using: &generator)
    }

    /// The delay before `attempt` (1-based), drawn with `generator`.
    public func delay(forAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = ceiling(forAttempt: attempt)
        switch jitter {
        case .none:
            return ceiling
        case .full:
            let seconds = Self.seconds(ceiling)
            guard seconds > 0 else { return .zero }
            return .seconds(Double.random(in: 0...seconds, using: &generator))
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private static func power(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(min(exponent, 1024))
        while remaining > 0 {
            result *= base
            if !result.isFinite { return .infinity }
            remaining -= 1
        }
        return result
    }
}

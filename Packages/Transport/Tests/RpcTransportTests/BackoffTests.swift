import RpcTransport
import Testing

/// A deterministic generator for jitter tests.
struct SequenceGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state
    }
}

@Suite("Backoff and reconnect policy")
struct BackoffTests {
    @Test("ceilings grow exponentially from the initial delay and stop at the maximum")
    func ceilings() {
        let backoff = Backoff(initialDelay: .milliseconds(100), maxDelay: .seconds(1), multiplier: 2, jitter: .none)
        let ceilings = (1...6).map { backoff.delay(forAttempt: $0) }
        #expect(ceilings == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        #expect(backoff.ceiling(forAttempt: 10_000) == .seconds(1))
    }

    @Test("any attempt number gives a ceiling: zero, negative and Int.min the first one, Int.max the maximum")
    func extremeAttempts() {
        let backoff = Backoff(initialDelay: .milliseconds(100), maxDelay: .seconds(1), multiplier: 2, jitter: .none)
        for attempt in [0, -1, Int.min] {
            #expect(backoff.ceiling(forAttempt: attempt) == .milliseconds(100))
        }
        #expect(backoff.ceiling(forAttempt: Int.max) == .seconds(1))
        let huge = Backoff(initialDelay: .seconds(1), maxDelay: .seconds(5), multiplier: .infinity, jitter: .none)
        #expect(huge.ceiling(forAttempt: 3) == .seconds(5))
    }

    @Test("full jitter stays between zero and the ceiling and varies")
    func fullJitter() {
        let backoff = Backoff(initialDelay: .milliseconds(100), maxDelay: .seconds(10))
        var generator = SequenceGenerator(state: 42)
        var seen = Set<Duration>()
        for attempt in 1...50 {
            let delay = backoff.delay(forAttempt: attempt, using: &generator)
            #expect(delay >= .zero)
            #expect(delay <= backoff.ceiling(forAttempt: attempt))
            seen.insert(delay)
        }
        #expect(seen.count > 40)
    }

    @Test("a policy allows attempts up to its maximum, never allows none, nil allows all")
    func policyLimits() {
        let policy = ReconnectPolicy(maxAttempts: 3)
        #expect(policy.allows(attempt: 3) && !policy.allows(attempt: 4))
        #expect(!ReconnectPolicy.never.allows(attempt: 1))
        #expect(ReconnectPolicy(maxAttempts: nil).allows(attempt: 1_000_000))
    }

    @Test("connection states describe themselves and know when they are usable")
    func connectionStates() {
        #expect(ConnectionState.connected.isConnected)
        #expect(!ConnectionState.reconnecting(attempt: 2).isConnected)
        #expect(ConnectionState.reconnecting(attempt: 2).description == "reconnecting(2)")
        #expect(ConnectionState.disconnected(nil).description == "disconnected")
    }
}

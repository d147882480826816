@testable import RpcDo
import RpcTransport
import Testing

@Suite("The retry loop shared by calls and JSON-RPC requests")
struct RetryLoopTests {
    struct Failure: Error {
        var transient: Bool
    }

    @Test("it makes at most maxRetries more attempts, and only while the rule allows")
    func attempts() async {
        let loop = RetryLoop(maxRetries: 3, backoff: Backoff(initialDelay: .zero, maxDelay: .zero), maxRetryDelay: .zero)
        var made = 0
        do {
            _ = try await loop.run(isSafeToRetry: { error, _ in error.transient }, cancelled: { Failure(transient: false) }) {
                (_: SentFlag) async throws(Failure) -> Int in
                made += 1
                throw Failure(transient: true)
            }
        } catch {}
        #expect(made == 4)
        made = 0
        do {
            _ = try await loop.run(isSafeToRetry: { error, _ in error.transient }, cancelled: { Failure(transient: false) }) {
                (_: SentFlag) async throws(Failure) -> Int in
                made += 1
                throw Failure(transient: false)
            }
        } catch {}
        #expect(made == 1)
    }

    @Test("an attempt that reached the transport is retried only when the rule says so")
    func sentAttempts() async {
        let loop = RetryLoop(maxRetries: 5, backoff: Backoff(initialDelay: .zero, maxDelay: .zero), maxRetryDelay: .zero)
        var made = 0
        let value: Int? = try? await loop.run(isSafeToRetry: { _, sent in !sent }, cancelled: { Failure(transient: false) }) {
            (sent: SentFlag) async throws(Failure) -> Int in
            made += 1
            if made == 2 { sent.set() }
            throw Failure(transient: true)
        }
        #expect(value == nil)
        #expect(made == 2)
    }

    @Test("a retryAfter hint sets the wait, capped at maxRetryDelay; without one the backoff's ceiling bounds it")
    func delays() {
        let loop = RetryLoop(maxRetries: 3, backoff: .exponential(base: .milliseconds(100), max: .seconds(1)), maxRetryDelay: .seconds(5))
        #expect(loop.delay(retry: 1, hint: .seconds(2)) == .seconds(2))
        #expect(loop.delay(retry: 1, hint: .seconds(60)) == .seconds(5))
        #expect(loop.delay(retry: 1, hint: .seconds(-1)) == .zero)
        for retry in 1...6 {
            #expect(loop.delay(retry: retry, hint: nil) <= loop.backoff.ceiling(forAttempt: retry))
        }
        #expect(ClientCore.retryAfter(.rateLimitExceeded(retryAfter: 1.5)) == .milliseconds(1500))
        #expect(ClientCore.retryAfter(.timeout) == nil)
    }
}

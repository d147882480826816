import RpcTesting
import Synchronization
import Testing

/// A counter that moves once per check, so a condition becomes true after a known number of
/// checks without any timing.
private final class Checks: Sendable {
    private let count = Mutex(0)
    /// Counts one check and returns how many there were.
    func next() -> Int { count.withLock { $0 += 1; return $0 } }
    var total: Int { count.withLock { $0 } }
}

private struct Boom: Error, Equatable {}

/// An actor whose state a condition reads without leaving its isolation.
private actor Owner {
    var ticks = 0

    func waitForThreeTicks() async -> Bool {
        await waitUntil {
            ticks += 1
            return ticks == 3
        }
    }
}

@Suite("Waiting for a condition")
struct WaitUntilTests {
    @Test("waitUntil returns true once the condition holds, after as many checks as it took")
    func holds() async {
        let checks = Checks()
        let held = await waitUntil(timeout: .seconds(30)) { checks.next() == 4 }
        #expect(held)
        #expect(checks.total == 4)
    }

    @Test("waitUntil returns false when the condition never holds, after checking more than once")
    func neverHolds() async {
        let checks = Checks()
        let held = await waitUntil(timeout: .milliseconds(50), every: .milliseconds(1)) {
            _ = checks.next()
            return false
        }
        #expect(!held)
        #expect(checks.total >= 2)
    }

    @Test("An error of the condition ends the wait and is rethrown")
    func conditionThrows() async {
        let checks = Checks()
        await #expect(throws: Boom.self) {
            _ = try await waitUntil(timeout: .seconds(30)) { () throws -> Bool in
                if checks.next() == 2 { throw Boom() }
                return false
            }
        }
        #expect(checks.total == 2)
    }

    @Test("A condition may read the state of the actor that waits")
    func isolated() async {
        let owner = Owner()
        #expect(await owner.waitForThreeTicks())
        #expect(await owner.ticks == 3)
    }

    @Test("The throwing waitUntil names what it waited for when the time runs out")
    func namedTimeout() async {
        let error = await #expect(throws: WaitTimedOut.self) {
            try await waitUntil("the marker", timeout: .milliseconds(20)) { false }
        }
        #expect(error?.what == "the marker")
        #expect(error?.cancelled == false)
        #expect(error?.description == "the marker did not happen within \(Duration.milliseconds(20))")
    }

    @Test("The throwing waitUntil returns once the condition holds")
    func namedHolds() async throws {
        let checks = Checks()
        try await waitUntil("the third check", timeout: .seconds(30)) { checks.next() == 3 }
        #expect(checks.total == 3)
    }

    @Test("waitFor returns the first value produced")
    func value() async throws {
        let checks = Checks()
        let value = try await waitFor("a value", timeout: .seconds(30)) { () -> String? in
            let count = checks.next()
            return count >= 3 ? "check \(count)" : nil
        }
        #expect(value == "check 3")
    }

    @Test("waitFor throws WaitTimedOut when nothing is produced")
    func noValue() async {
        await #expect(throws: WaitTimedOut.self) {
            _ = try await waitFor("a value", timeout: .milliseconds(20)) { () -> Int? in nil }
        }
    }

    @Test("A cancelled wait ends without waiting out its timeout, reporting the cancellation", .timeLimit(.minutes(1)))
    func cancelled() async {
        let checks = Checks()
        let task = Task {
            try await waitUntil("something that never happens", timeout: .seconds(3600)) {
                _ = checks.next()
                return false
            }
        }
        // Cancel only once the wait is under way, so the cancellation meets the loop.
        #expect(await waitUntil(timeout: .seconds(30)) { checks.total >= 1 })
        task.cancel()
        let result = await task.result
        #expect(throws: WaitTimedOut.self) { try result.get() }
        if case .failure(let error as WaitTimedOut) = result {
            #expect(error.cancelled)
        }
    }
}

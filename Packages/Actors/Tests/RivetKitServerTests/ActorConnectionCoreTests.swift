@testable import RivetKit
import Testing

@Suite("ActorConnectionCore, the pure state of a realtime connection")
struct ActorConnectionCoreTests {
    /// Links are generation numbers, waiters names.
    typealias Core = ActorConnectionCore<Int, String>

    /// The answers among `effects`, as (waiter, error code or output).
    static func answers(_ effects: [Core.Effect]) -> [String] {
        effects.compactMap { effect in
            guard case .answer(let waiter, let outcome) = effect else { return nil }
            switch outcome {
            case .success(let output): return "\(waiter)=\(output)"
            case .failure(let error): return "\(waiter)!\(error.code)"
            }
        }
    }

    /// The errors reported among `effects`, as code@readies.
    static func reports(_ effects: [Core.Effect]) -> [String] {
        effects.compactMap { effect in
            guard case .report(let error, let readies) = effect else { return nil }
            return "\(error.code)@\(readies)"
        }
    }

    static let frame: [UInt8] = Array("{}".utf8)

    @Test("Each error reported is dated by how many times a link was ready, so an observer can tell one from before a reconnection")
    func errorsDated() {
        var core = Core(queueLimit: 4)
        _ = core.start()
        _ = core.linkReady(7, generation: 1)
        #expect(core.readies == 1)
        #expect(Self.reports(core.linkClosed(generation: 1, reason: nil, description: "1006")) == ["connection_lost@1"])
        _ = core.linkReady(8, generation: 2)
        #expect(core.readies == 2)
        let frameError = core.connectionError(ActorError(group: "actor", code: "internal_error"))
        #expect(Self.reports(frameError) == ["internal_error@2"])
    }

    @Test("An action held offline is sent by its attempt on the link that becomes ready, and is rejected when that link closes")
    func heldThenSentThenLost() {
        var core = Core(queueLimit: 4)
        _ = core.start()
        #expect(core.hold(1, frame: Self.frame, limited: true) == nil)
        #expect(core.wait(1, waiter: "a").isEmpty)
        _ = core.linkReady(7, generation: 1)
        #expect(core.status == .connected)
        #expect(core.flush(through: 1, generation: 1) == [Self.frame])
        let effects = core.linkClosed(generation: 1, reason: nil, description: "1006")
        #expect(Self.answers(effects) == ["a!connection_lost"])
        #expect(core.status == .disconnected)
        #expect(core.pendingCount == 0)
    }

    @Test("An attempt whose link closed before it wrote its action writes nothing, and the action waits for the next link instead of failing")
    func attemptAfterLoss() {
        var core = Core(queueLimit: 4)
        _ = core.start()
        _ = core.linkReady(7, generation: 1)
        #expect(core.hold(1, frame: Self.frame, limited: false) == nil)
        _ = core.wait(1, waiter: "a")
        #expect(Self.answers(core.linkClosed(generation: 1, reason: nil, description: "1006")).isEmpty)
        #expect(core.flush(through: 1, generation: 1) == nil)
        #expect(core.pendingCount == 1)
        _ = core.linkReady(8, generation: 2)
        #expect(core.flush(through: 1, generation: 2) == [Self.frame])
        #expect(Self.answers(core.answered(1, .success(3))) == ["a=3"])
    }

    @Test("A newer link ready before the older one's close was seen rejects what was sent on the older one; a close reason's error is the rejection")
    func newerLinkAndCloseReason() {
        var core = Core(queueLimit: 4)
        _ = core.start()
        _ = core.linkReady(7, generation: 1)
        _ = core.hold(1, frame: Self.frame, limited: false)
        _ = core.flush(through: 1, generation: 1)
        _ = core.wait(1, waiter: "a")
        #expect(Self.answers(core.linkReady(8, generation: 2)) == ["a!connection_lost"])
        _ = core.hold(2, frame: Self.frame, limited: false)
        _ = core.flush(through: 2, generation: 2)
        _ = core.wait(2, waiter: "b")
        let effects = core.linkClosed(generation: 2, reason: "actor.destroyed_while_connected", description: "1011")
        #expect(Self.answers(effects) == ["b!destroyed_while_connected"])
    }

    @Test("Actions made before the supervisor runs are written after Init, after the subscriptions, in order; past the limit one is refused")
    func unsentOrder() {
        var core = Core(queueLimit: 2)
        _ = core.listenerAdded("tick")
        #expect(core.hold(1, frame: Array("one".utf8), limited: true) == nil)
        #expect(core.hold(2, frame: Array("two".utf8), limited: true) == nil)
        guard let error = core.hold(3, frame: Self.frame, limited: true) else {
            Issue.record("expected the third action to be refused")
            return
        }
        #expect(error.code == "not_connected")
        _ = core.start()
        let frames = core.initReceived(generation: 1, actorId: "a", connectionId: "c").map { String(decoding: $0, as: UTF8.self) }
        #expect(frames.count == 1)
        #expect(frames.first?.contains("tick") == true)
        // Before the link is ready nothing held is written; then the first attempt writes them all, in order.
        #expect(core.flush(through: 1, generation: 1) == nil)
        _ = core.linkReady(7, generation: 1)
        #expect(core.flush(through: 2, generation: 1)?.map { String(decoding: $0, as: UTF8.self) } == ["one", "two"])
        #expect(core.flush(through: 1, generation: 1)?.isEmpty == true)
    }

    @Test("An answer that comes before its caller waits is kept for it; an open failure rejects every action and goes idle")
    func answerBeforeWaitAndOpenFailure() {
        var core = Core(queueLimit: 4)
        _ = core.start()
        _ = core.linkReady(7, generation: 1)
        _ = core.hold(1, frame: Self.frame, limited: false)
        _ = core.flush(through: 1, generation: 1)
        #expect(core.answered(1, .success(5)).isEmpty)
        #expect(Self.answers(core.wait(1, waiter: "a")) == ["a=5"])
        var fresh = Core(queueLimit: 4)
        _ = fresh.start()
        _ = fresh.hold(1, frame: Self.frame, limited: true)
        _ = fresh.wait(1, waiter: "b")
        let effects = fresh.openFailed(ActorError(.authUnauthorized, "no"))
        #expect(Self.answers(effects) == ["b!unauthorized"])
        #expect(fresh.status == .idle)
        #expect(fresh.lastError?.code == "unauthorized")
    }
}

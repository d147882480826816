import RpcTransportTesting
import Testing
import CapnWebTestSupport
import RpcTransport
@testable import CapnWebCore

/// A main object that makes large values: `big(n)` answers a string of `n` characters, `fail(n)`
/// rejects with a message of `n` characters, `bigLater(n)` answers like `big` after suspending,
/// `controls(n)` answers `n` control characters (which the wire escapes).
final class LargeValueAPI: RpcTarget {
    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let length = try arguments.decode(0, as: Int.self)
        guard (0...10_000_000).contains(length) else {
            throw RpcErrorValue(name: "RangeError", message: "length out of range")
        }
        switch method {
        case "big":
            return .string(String(repeating: "x", count: length))
        case "bigLater":
            await Task.yield()
            try await Task.sleep(for: .milliseconds(1))
            return .string(String(repeating: "x", count: length))
        case "controls":
            // Six bytes a character once escaped (`\u0001`), one in the estimate.
            return .string(String(repeating: "\u{1}", count: length))
        case "fail":
            throw RpcErrorValue(name: "Error", message: String(repeating: "e", count: length))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

@Suite("Answers counted against the pending-output limit")
struct PendingOutputTests {
    /// A server with `limits`, registered with `peers`, on an end whose bursts last until the test
    /// ends them, and a raw peer on the other end.
    private static func start(_ limits: RpcLimits, _ peers: CheckedPeers) -> (RpcSession<Any>, HeldBurstTransport, FaultPeer) {
        let (a, b) = InMemoryTransport.makePair()
        let held = HeldBurstTransport(b)
        var configuration = Configuration()
        configuration.limits = limits
        let server = peers.startServer(transport: held, main: LargeValueAPI(), configuration: configuration)
        return (server, held, FaultPeer(a))
    }

    /// The answer frames for exports `ids`, once all have arrived, in the order of `ids`.
    private static func answers(_ peer: FaultPeer, _ ids: ClosedRange<Int>) async throws -> [String] {
        try await waitFor("answers \(ids)") { () -> [String]? in
            let frames = peer.frames
            var found: [String] = []
            for id in ids {
                guard let frame = frames.first(where: {
                    $0.hasPrefix(#"["resolve",\#(id),"#) || $0.hasPrefix(#"["reject",\#(id),"#)
                }) else { return nil }
                found.append(frame)
            }
            return found
        }
    }

    /// Releases exports 1 through `last`, lets the burst end, and waits until the tables are back
    /// to their main entries (the harness checks them once more at the end).
    private static func finish(_ server: RpcSession<Any>, _ held: HeldBurstTransport, _ peer: FaultPeer, last: Int) async throws {
        for id in 1...last { try peer.send(#"["release",\#(id),1]"#) }
        // A call answered after the releases: every release has been handled by then.
        try peer.send(#"["push",["pipeline",0,["big"],[1]]]"#)
        try peer.send(#"["pull",\#(last + 1)]"#)
        _ = try await answers(peer, (last + 1)...(last + 1))
        try peer.send(#"["release",\#(last + 1),1]"#)
        held.endBurst()
        try await waitUntil("the server's tables to settle") { server.getStats() == .mainOnly }
        held.endBurst()
        #expect(peer.closure == nil)
    }

    @Test("ten pulls of one large value in one burst build only the answers that fit the limit; the others are refused saying why, and the session goes on")
    func manyPullsOfOneLargeValue() async throws {
        try await withCheckedPeers { peers in
            let (server, held, peer) = Self.start(RpcLimits(maxPendingOutputBytes: 100_000), peers)
            try peer.send(#"["push",["pipeline",0,["big"],[30000]]]"#)
            for id in 2...11 {
                try peer.send(#"["push",["pipeline",1]]"#)
                try peer.send(#"["pull",\#(id)]"#)
            }
            let frames = try await Self.answers(peer, 2...11)
            let resolved = frames.filter { $0.hasPrefix(#"["resolve""#) }
            let refused = frames.filter { $0.contains("cannot be sent now") && $0.contains("maxPendingOutputBytes") }
            #expect(resolved.count == 3)
            #expect(refused.count == 7)
            #expect(frames.allSatisfy { $0.utf8.count < 31_000 })
            // Once the transport has written the burst out, the value can be sent again.
            held.endBurst()
            try peer.send(#"["push",["pipeline",1]]"#)
            try peer.send(#"["pull",12]"#)
            let later = try await Self.answers(peer, 12...12)
            #expect(later.first?.hasPrefix(#"["resolve",12,"xxx"#) == true)
            try await Self.finish(server, held, peer, last: 12)
        }
    }

    @Test("ten pulls of one large rejection in one burst build only the rejections that fit the limit")
    func manyPullsOfOneLargeRejection() async throws {
        try await withCheckedPeers { peers in
            let (server, held, peer) = Self.start(RpcLimits(maxPendingOutputBytes: 100_000), peers)
            try peer.send(#"["push",["pipeline",0,["fail"],[30000]]]"#)
            for id in 2...11 {
                try peer.send(#"["push",["pipeline",1]]"#)
                try peer.send(#"["pull",\#(id)]"#)
            }
            let frames = try await Self.answers(peer, 2...11)
            let large = frames.filter { $0.hasPrefix(#"["reject","#) && $0.contains("eeeeeeeeee") }
            let refused = frames.filter { $0.contains("the rejection cannot be sent now") }
            #expect(large.count == 3)
            #expect(refused.count == 7)
            try await Self.finish(server, held, peer, last: 11)
        }
    }

    @Test("an answer larger than its estimate is refused once encoded, and the budget then counts as full, so the next one is refused before it is built")
    func underestimatedAnswerFillsTheBudget() async throws {
        try await withCheckedPeers { peers in
            let (server, held, peer) = Self.start(RpcLimits(maxPendingOutputBytes: 100_000), peers)
            try peer.send(#"["push",["pipeline",0,["controls"],[20000]]]"#)
            try peer.send(#"["pull",1]"#)
            try peer.send(#"["push",["pipeline",1]]"#)
            try peer.send(#"["pull",2]"#)
            let frames = try await Self.answers(peer, 1...2)
            // Estimated at 20,002 bytes, encoded in 120,016: refused once encoded, with nothing
            // written yet; the budget is then full, so the same value is refused at its estimate.
            #expect(frames[0].contains(": 0 bytes of answers are waiting to be written, and this answer (at least 120016 bytes)"))
            #expect(frames[1].contains(": 100000 bytes of answers are waiting to be written, and this answer (at least 20002 bytes)"))
            try await Self.finish(server, held, peer, last: 2)
        }
    }

    @Test("an answer over the message limit is refused before it is built, with the limit in the reason, and the session goes on")
    func answerOverTheMessageLimit() async throws {
        try await withCheckedPeers { peers in
            let (server, held, peer) = Self.start(RpcLimits(maxMessageSize: 50_000), peers)
            try peer.send(#"["push",["pipeline",0,["big"],[60000]]]"#)
            try peer.send(#"["pull",1]"#)
            try peer.send(#"["push",["pipeline",0,["fail"],[60000]]]"#)
            try peer.send(#"["pull",2]"#)
            let frames = try await Self.answers(peer, 1...2)
            #expect(frames[0] == #"["reject",1,["error","Error","the result is too large to send: its message would be over the limit of 50000 bytes"]]"#)
            #expect(frames[1] == #"["reject",2,["error","Error","the rejection is too large to send: its message would be over the limit of 50000 bytes"]]"#)
            try await Self.finish(server, held, peer, last: 2)
        }
    }

    @Test("an HTTP batch whose answers would pass the message limit rejects the call that does, so the body stays within it")
    func batchAnswerStaysWithinTheLimit() async throws {
        var configuration = Configuration()
        configuration.limits.maxMessageSize = 100_000
        var lines: [TransportMessage] = []
        for id in 1...3 {
            lines.append(.text(#"["push",["pipeline",0,["big"],[40000]]]"#))
            lines.append(.text(#"["pull",\#(id)]"#))
        }
        let answers = try await answerBatch(lines, configuration: configuration) { LargeValueAPI() }
        let body = answers.map(\.bytes.count).reduce(0, +) + answers.count - 1
        #expect(body <= 100_000)
        let texts = answers.compactMap(\.text)
        #expect(texts.filter { $0.hasPrefix(#"["resolve","#) }.count == 2)
        #expect(texts.contains {
            $0.hasPrefix(#"["reject",3,["error","Error","the result is too large to send: the batch answer would be "#)
                && $0.contains("over the limit of 100000")
        })
        // A single answer over the limit is refused as over a WebSocket.
        let single = try await answerBatch(
            [.text(#"["push",["pipeline",0,["big"],[200000]]]"#), .text(#"["pull",1]"#)],
            configuration: configuration
        ) { LargeValueAPI() }
        #expect(single.compactMap(\.text) == [
            #"["reject",1,["error","Error","the result is too large to send: its message would be over the limit of 100000 bytes"]]"#
        ])
    }
}

import Synchronization
import Testing
import CapnWebConformance
import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
@testable import CapnWebCore

/// A main object whose `gate` call answers only when the test opens the gate, so that a peer
/// can pipeline on its promise for as long as it likes.
final class GateAPI: RpcTarget {
    private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
    private let opened = Mutex(false)
    let calls = Recorder<String>()

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        calls.append(method)
        guard method == "gate" else { throw RpcErrorValue.notAFunction(method) }
        await withCheckedContinuation { continuation in
            let open = opened.withLock { $0 }
            if open {
                continuation.resume()
            } else {
                waiting.withLock { $0.append(continuation) }
            }
        }
        return .object([])
    }

    /// Lets every waiting and later `gate` call answer.
    func open() {
        opened.withLock { $0 = true }
        for continuation in waiting.withLock({ list in defer { list = [] }; return list }) {
            continuation.resume()
        }
    }
}

extension MemoryHeavyTests {
    @Suite("Deep pipelined chains")
    struct DeepChainTests {
        /// The length of the chains built without the wire.
        static let links = 1_000_000

        /// A chain of `links` reads of `member`, each pipelined on the one before, on `head`.
        static func chain(on head: any StubHook, links: Int, member: String = "next") -> any StubHook {
            var tail = head
            for _ in 0..<links { tail = tail.get([.property(member)]) }
            return tail
        }

        /// The stack of the thread the chains are settled on: a chain settled one link inside
        /// another would overflow it within a few thousand links.
        static let smallStack = 1 << 20

        @Test("a million member reads pipelined on a promise settle, link after link, when it resolves")
        func millionLinksResolve() async throws {
            let settlement = try await onOwnThread(stackSize: Self.smallStack) { () -> Settlement? in
                let head = LocalPromiseHook()
                // A name every object inherits reads as undefined from anything, undefined
                // included, so each link resolves (any other name would reject from the second
                // link on, as reading a member of undefined does).
                let tail = Self.chain(on: head, links: Self.links, member: "constructor")
                head.settle(.success(.undefined))
                return (tail as? LocalPromiseHook)?.current
            }
            guard case .success(.undefined) = settlement else {
                Issue.record("the last link did not resolve to undefined before settle returned")
                return
            }
        }

        @Test("a million member reads and calls pipelined on a promise are rejected, link after link, when it rejects")
        func millionLinksReject() async throws {
            let settlement = try await onOwnThread(stackSize: Self.smallStack) { () -> Settlement? in
                let head = LocalPromiseHook()
                var tail: any StubHook = head
                for index in 0..<Self.links {
                    tail = index % 2 == 0 ? tail.get([.property("next")]) : tail.call([.property("step")], [])
                }
                head.settle(.failure(.thrown(.error(RpcErrorValue(name: "Error", message: "boom")))))
                return (tail as? LocalPromiseHook)?.current
            }
            guard case .failure(.thrown(.error(let error))) = settlement else {
                Issue.record("the last link was not rejected with the head's error before settle returned")
                return
            }
            #expect(error.message == "boom")
        }

        @Test("a promise settled while another settlement is delivered is delivered before the outer settle returns, in order")
        func nestedSettlementsKeepOrder() {
            let first = LocalPromiseHook()
            let second = LocalPromiseHook()
            let order = Recorder<String>()
            first.whenSettled { _ in
                second.settle(.success(.integer(2)))
                // Delivered after this listener returns, not inside it.
                order.append(second.current == nil ? "inner-pending" : "inner-delivered")
            }
            first.whenSettled { _ in order.append("first-second-listener") }
            second.whenSettled { _ in order.append("second") }
            first.settle(.success(.integer(1)))
            #expect(order.all == ["inner-pending", "first-second-listener", "second"])
            #expect(second.current != nil)
        }

        /// The longest chain a peer can pipeline within the default table limit (each link is an
        /// entry, beside the main one and the `gate()` call).
        static let peerLinks = RpcLimits.default.maxTableEntries - 2

        /// A server session over an in-memory pair, registered with `peers`, and a raw peer that has sent (from a thread of
        /// its own) `gate()`, ``peerLinks`` member reads each pipelined on the one before, and a
        /// pull of the last; returned once the server runs the `gate()` call.
        private static func startChain(_ peers: CheckedPeers) async throws -> (
            client: InMemoryTransport, api: GateAPI, server: RpcSession<Any>, peer: RawPeer
        ) {
            let (a, b) = InMemoryTransport.makePair()
            let api = GateAPI()
            let server = peers.startServer(transport: b, main: api)
            let peer = RawPeer(a)
            let links = peerLinks
            try await onOwnThread {
                try peer.send(#"["push",["pipeline",0,["gate"],[]]]"#)
                for id in 1...links {
                    try peer.send(#"["push",["pipeline",\#(id),["next"]]]"#)
                }
                try peer.send(#"["pull",\#(links + 1)]"#)
            }
            try await waitUntil("the server to take the gate call", timeout: .seconds(120)) { api.calls.count == 1 }
            return (a, api, server, peer)
        }

        /// What the last link of the chain settles with: the second `next` is read from
        /// `undefined` (the first found nothing in `{}`), which rejects as the reference does, and
        /// every later link passes the rejection on.
        @Test("the longest chain the table limit lets a peer pipeline settles without exhausting the stack")
        func peerChainResolves() async throws {
            try await withCheckedPeers { peers in
                let chain = try await Self.startChain(peers)
                chain.api.open()
                let last = Self.peerLinks + 1
                let answer = try await waitFor("the chain's answer", timeout: .seconds(120)) { () -> String? in
                    chain.peer.takeAll().first { $0.hasPrefix("[\"resolve\",\(last),") || $0.hasPrefix("[\"reject\",\(last),") }
                }
                #expect(answer == #"["reject",\#(last),["error","TypeError","Cannot read properties of undefined (reading 'next')"]]"#)
                await chain.server.close()
                #expect(chain.server.getStats() == RpcStats(imports: 1, exports: 1))
            }
        }

        @Test("the longest chain the table limit lets a peer pipeline is rejected without exhausting the stack when the peer goes away")
        func peerChainDisconnects() async throws {
            try await withCheckedPeers { peers in
                let chain = try await Self.startChain(peers)
                try await waitUntil("the server to hold the whole chain", timeout: .seconds(120)) {
                    chain.server.getStats().exports == Self.peerLinks + 2
                }
                await chain.client.close()
                try await waitUntil("the server's session to end", timeout: .seconds(120)) {
                    chain.server.getStats() == RpcStats(imports: 1, exports: 1)
                }
                await chain.server.close()
                chain.api.open()
            }
        }
    }
}

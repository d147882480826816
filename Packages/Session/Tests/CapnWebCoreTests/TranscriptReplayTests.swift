import Testing
import CapnWebConformance
import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
import RpcWire
import CapnWebDemo
@testable import CapnWebCore

/// Replays the reference wire transcript against our engine, frame by frame, compared as exact
/// JSON text. Within a run of consecutive frames in one direction the order may differ from the
/// reference (completion order), so each run is compared as a multiset.
@Suite("Transcript replay")
struct TranscriptReplayTests {
    // MARK: Server role

    /// Feeds every client frame (`<-`) of segment `name` to a server session (our engine with
    /// the ``TestAPI`` main object) and checks that each run of server frames (`->`) arrives
    /// before the next client frames are sent, with the segment's adjustments
    /// (``ServerRoleReplay``: frames our engine legitimately does not produce, IDs that differ).
    private func replayServerRole(_ name: String) async throws {
        try await withCheckedPeers { peers in
            let (clientEnd, serverEnd) = InMemoryTransport.makePair()
            let server = peers.startServer(transport: serverEnd, main: TestAPI())
            let peer = RawPeer(clientEnd)
            let outcome = try await ServerRoleReplay(segment: name).run(on: peer)
            #expect(outcome.runCount > 2, "\(name) has no frames")
            #expect(outcome.missing.isEmpty, "\(name): server frames missing: \(outcome.missing); unmatched: \(outcome.unmatched)")
            // Anything the server still sends is sent by the time its answers are: let it answer
            // everything, then anchor on a marker sent behind its frames.
            await server.drain()
            let extra = await peer.leftovers(markedBy: serverEnd)
            #expect(extra == [], "\(name): unexpected server frames: \(String(describing: extra))")
            if outcome.completed {
                #expect(outcome.unusedAdjustments.isEmpty, "\(name): adjustments that match no frame: \(outcome.unusedAdjustments)")
            }
            await clientEnd.close(code: .applicationError, reason: "RPC session was shut down by disposing the main stub")
        }
    }

    @Test("the server answers the reference client's ws#1 frames exactly (calls, pipelining, callbacks, errors, map)")
    func serverRoleSegment1() async throws {
        try await replayServerRole("ws#1")
    }

    @Test("the server answers the reference client's ws#2 frames (promises, dup, client-captured map, nested map, streams)")
    func serverRoleSegment2() async throws {
        // With the adjustments for the reference server's `dup()` of each map callback's
        // result, which our engine does not make (see `ServerRoleReplay`).
        try await replayServerRole("ws#2")
    }

    @Test("the server answers the reference client's ws#3 frames (returnStub, special values, properties)")
    func serverRoleSegment3() async throws {
        try await replayServerRole("ws#3")
    }

    @Test("the server-role replay covers every WebSocket segment of the transcript")
    func serverRoleCoversEverySegment() {
        let named = Set(ReferenceTranscript.text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("[ws#"), let end = line.firstIndex(of: "]") else { return nil }
            return String(line[line.index(after: line.startIndex)..<end])
        })
        #expect(Set(ServerRoleReplay.segments) == named)
    }

    @Test("an HTTP batch gives the reference response once the session drains")
    func serverRoleBatch() async throws {
        let batch = ReferenceTranscript.batch
        #expect(batch.request.count == 16 && batch.response.count == 11)
        let (clientEnd, serverEnd) = InMemoryTransport.makePair()
        let peer = RawPeer(clientEnd)
        let core = SessionCore(transport: serverEnd, main: TargetHook(TestAPI()), limits: .default)
        for line in batch.request {
            core.receive(.text(line))
        }
        await core.drain()
        let missing = await peer.expect(batch.response)
        #expect(missing.isEmpty, "batch responses missing: \(missing); unmatched: \(peer.takeAll())")
        let extra = await peer.leftovers(markedBy: serverEnd)
        #expect(extra == [], "unexpected batch responses: \(String(describing: extra))")
        core.end(.failed(.connectionLost(nil)))
    }

    // MARK: Client role

    /// Runs `script` on a client session against a fake server that replays the server
    /// frames of segment `name`, and checks that the client sends the reference client's
    /// frames (each run as a multiset, waited for before the next server frames go out).
    ///
    /// - Parameter extras: Frames our client sends and the reference client does not.
    private func replayClientRole(
        _ name: String, extras: [String],
        script: @escaping @Sendable (Ref<Any>) async throws -> Void
    ) async throws {
        try await withCheckedPeers { peers in
            let (clientEnd, serverEnd) = InMemoryTransport.makePair()
            let fakeServer = RawPeer(serverEnd)
            let client = peers.startClient(transport: clientEnd)
            let api = client.api
            let running = Task { try await script(api) }
            for run in ReferenceTranscript.runs(ReferenceTranscript.segment(name)) {
                if run.toServer {
                    let missing = await fakeServer.expect(run.frames)
                    #expect(missing.isEmpty, "\(name): client frames missing: \(missing); unmatched: \(fakeServer.takeAll())")
                    if !missing.isEmpty { break }
                } else {
                    for frame in run.frames { try fakeServer.send(frame) }
                }
            }
            try await running.value
            // Our client's own frames arrive (releases may trail the script), and after them, up
            // to a marker sent behind everything the client sent, nothing else.
            let missingExtras = await fakeServer.expect(extras)
            #expect(missingExtras.isEmpty, "\(name): frames of ours missing: \(missingExtras)")
            await client.drain()
            let extra = await fakeServer.leftovers(markedBy: clientEnd)
            #expect(extra == [], "\(name): frames beyond the reference: \(String(describing: extra))")
        }
    }

    @Test("the client sends the reference client's ws#1 frames for the same calls")
    func clientRoleSegment1() async throws {
        // The reference client never disposed the results it only pipelined on (getUser(42),
        // add(2, 3), the counter, the map subjects); our refs release them when they go out
        // of scope.
        let extras = [6, 8, 10, 18, 20, 22].map { #"["release",\#($0),1]"# }
        try await replayClientRole("ws#1", extras: extras) { api in
            let square: Int = try await api.square(5)
            #expect(square == 25)
            let sum: Int = try await api.add(2, 3)
            #expect(sum == 5)
            let objectRef = api.echo(
                RpcPayload.object([.init("a", [1, "x", nil, true]), .init("d", 0)]))
            let object = try await objectRef.payload()
            #expect(object["d"]?.decodedInt == 0)
            let specialsRef = api.echo(
                RpcPayload.array([
                    .date(5), .bigint("12345678901234567890"), .bytes([1, 2, 3]), .undefined,
                    .double(.infinity), .double(-.infinity),
                ]))
            let specials = try await specialsRef.payload()
            #expect(specials[1]?.decodedBigint == "12345678901234567890")
            let nan: Double = try await api.echo(Double.nan)
            #expect(nan.isNaN)
            let name: String = try await api.getUser(42).profile.displayName
            #expect(name == "User 42")
            let added = api.add(2, 3)
            let squared: Int = try await api.square(added)
            #expect(squared == 25)
            let counter = api.makeCounter(10)
            let incremented: Int = try await counter.increment(5)
            #expect(incremented == 15)
            let value: Int = try await counter.value
            #expect(value == 15)
            let viaServer: Int = try await api.incrementCounter(counter, 2)
            #expect(viaServer == 17)
            let called: Int = try await api.callback(RpcFunction { (x: Int) in x * 2 }, 21)
            #expect(called == 42)
            let thrown = api.throwError("boom")
            let boom = await thrown.settle()
            guard case .rejected(let error) = boom else { Issue.record("throwError resolved"); return }
            #expect(error.name == "Error" && error.message == "boom")
            let thrownType = api.throwTypeError("bad")
            let bad = await thrownType.settle()
            guard case .rejected(let typeError) = bad else { Issue.record("throwTypeError resolved"); return }
            #expect(typeError.name == "TypeError")
            let fibonacci: [Int] = try await api.generateFibonacci(10)
            #expect(fibonacci == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
            let six = api.generateFibonacci(6)
            let squares: [Int] = try await six.map { api.square($0) }.resolved()
            #expect(squares == [0, 1, 1, 4, 9, 25])
            let three = api.generateFibonacci(3)
            let users = try await three.remap { x in
                let user = api.getUser(x)
                return ["x": .stub(RpcStub(x)), "u": .stub(RpcStub(user.profile.displayName as Ref<Any>))]
            }.payload()
            #expect(users[2]?["u"]?.decodedString == "User 1")
            let null = api.returnNull()
            let none = try await null.map { api.square($0) }.payload()
            #expect(none.isNullish)
        }
    }

    @Test("the client sends the reference client's ws#3 frames for the same calls")
    func clientRoleSegment3() async throws {
        try await replayClientRole("ws#3", extras: []) { api in
            do {
                let counter = api.makeCounter(1)
                let returnedRef = api.returnStub(counter)
                let returned = try await returnedRef.payload()
                guard case .stub(let stub) = returned else { Issue.record("returnStub gave \(returned)"); return }
                let value: Int = try await Ref<Any>(stub).value
                #expect(value == 1)
            }
            let special: RpcPayload = .object([
                .init("t", .date(nil)),
                .init("e", .error(RpcErrorValue(name: "RangeError", message: "r", properties: [.init("code", 7)]))),
                .init("big", .bigint("-5")),
                .init("u16", .bytes([1, 0, 2, 1], type: .uint16Array)),
                .init("ab", .bytes([0xFF], type: .arrayBuffer)),
                .init("url", .url("https://x.test/a?b=1")),
                .init("h", .headers([CapnWebHeader("x-a", "1")])),
            ])
            let echoedRef = api.echo(special)
            let echoed = try await echoedRef.payload()
            #expect(echoed["big"]?.decodedBigint == "-5")
            do {
                let user = api.getUser(5)
                let profile = try await user.profile.payload()
                #expect(profile["displayName"]?.decodedString == "User 5")
                let name: String = try await user.getName()
                #expect(name == "User 5")
            }
        }
    }
}

extension RpcPayload {
    /// The integer held, if any.
    fileprivate var decodedInt: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The string held, if any.
    fileprivate var decodedString: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The bigint digits held, if any.
    fileprivate var decodedBigint: String? {
        if case .bigint(let value) = self { return value }
        return nil
    }
}

/// The reference client's side of one WebSocket segment of the ``ReferenceTranscript``, replayed
/// against a server that serves `TestAPI` as its main object: its client frames (`<-`) are sent
/// run by run, and each run of server frames (`->`) must arrive, compared as exact JSON text,
/// before the next client frames go out. Within a run the order may differ from the reference
/// (completion order), so each run is compared as a multiset.
///
/// The server may be our engine over an in-memory pair or behind any mount, reached over a
/// WebSocket; the segment's adjustments (``skip`` and ``replace``) are the same everywhere.
///
/// ```swift
/// let replay = ServerRoleReplay(segment: "ws#1")
/// let outcome = try await replay.run(on: RawPeer(webSocket))
/// #expect(outcome.missing == [])
/// #expect(await replay.unexpectedFrames(on: peer, after: outcome) == [])
/// ```
public struct ServerRoleReplay: Sendable {
    /// The segments a server can answer this way, in transcript order.
    public static let segments = ["ws#1", "ws#2", "ws#3"]

    /// The segment, for example `"ws#1"`.
    public let segment: String
    /// Reference frames (`"-> text"` or `"<- text"`) our engine legitimately does not produce
    /// (server frames) or that must not be sent (client frames).
    public let skip: Set<String>
    /// Reference frames whose IDs differ with our engine, and the text used instead.
    public let replace: [String: String]

    /// What a replay found.
    public struct Outcome: Sendable {
        /// How many runs of one direction the segment has.
        public var runCount = 0
        /// The server frames of the first run that did not all arrive in time (empty when every
        /// run arrived).
        public var missing: [String] = []
        /// The frames that had arrived but matched nothing, when ``missing`` is not empty.
        public var unmatched: [String] = []
        /// Adjustments that matched no frame of the segment (checked only when every run
        /// arrived).
        public var unusedAdjustments: Set<String> = []
        /// How many import IDs the client frames sent allocated on the server (`push`, `pipe`
        /// and `stream` each take the next one).
        public var importsAllocated = 0

        /// Whether every run of server frames arrived.
        public var completed: Bool { missing.isEmpty }
    }

    /// The replay of `segment`, with the adjustments our engine needs for it.
    public init(segment: String) {
        self.segment = segment
        (skip, replace) = Self.adjustments(for: segment)
    }

    /// Sends the segment's client frames through `peer` and waits for each run of server frames
    /// in turn; stops at the first run that does not arrive.
    ///
    /// - Parameters:
    ///   - peer: The client's end, open to a server that serves `TestAPI`.
    ///   - timeout: How long to wait for each run of server frames.
    /// - Returns: What arrived, what did not, and what the next import ID is.
    /// - Throws: What sending a frame throws.
    public func run(on peer: RawPeer, timeout: Duration = .seconds(10)) async throws -> Outcome {
        var outcome = Outcome()
        var unused = skip.union(replace.keys)
        let runs = ReferenceTranscript.runs(ReferenceTranscript.segment(segment))
        outcome.runCount = runs.count
        for run in runs {
            let arrow = run.toServer ? "<- " : "-> "
            var frames: [String] = []
            for original in run.frames {
                let key = arrow + original
                unused.remove(key)
                if skip.contains(key) { continue }
                frames.append(replace[key] ?? original)
            }
            if run.toServer {
                for frame in frames {
                    try peer.send(frame)
                    if Self.allocatesImport(frame) { outcome.importsAllocated += 1 }
                }
            } else {
                let missing = await peer.expect(frames, timeout: timeout)
                if !missing.isEmpty {
                    outcome.missing = missing
                    outcome.unmatched = peer.takeAll()
                    return outcome
                }
            }
        }
        outcome.unusedAdjustments = unused
        return outcome
    }

    /// The frames the server sent beyond the segment's, for a server whose other end the caller
    /// cannot reach (one behind a WebSocket): calls `echo` on the main object once more and
    /// returns what arrived before its answer, which the server sends behind everything it sent
    /// for the calls before. Releases the call's result after. Returns `nil` when the answer
    /// does not arrive within `timeout`.
    ///
    /// - Parameters:
    ///   - peer: The client's end the segment was replayed on.
    ///   - outcome: What ``run(on:timeout:)`` returned, for the next import ID.
    ///   - timeout: How long to wait for the answer.
    /// - Returns: The server frames that arrived before the answer, unexpected by the replay.
    /// - Throws: What sending a frame throws.
    public func unexpectedFrames(on peer: RawPeer, after outcome: Outcome, timeout: Duration = .seconds(10)) async throws -> [String]? {
        let id = outcome.importsAllocated + 1
        try peer.send(#"["push",["pipeline",0,["echo"],["end of \#(segment)"]]]"#)
        try peer.send(#"["pull",\#(id)]"#)
        let frames = await peer.leftovers(before: #"["resolve",\#(id),"end of \#(segment)"]"#, timeout: timeout)
        try peer.send(#"["release",\#(id),1]"#)
        return frames
    }

    /// Whether the client frame `frame` takes the next import ID on the server.
    private static func allocatesImport(_ frame: String) -> Bool {
        frame.hasPrefix(#"["push","#) || frame == #"["pipe"]"# || frame.hasPrefix(#"["stream","#)
    }

    /// The frames of `segment` our engine sends differently from the reference server.
    private static func adjustments(for segment: String) -> (skip: Set<String>, replace: [String: String]) {
        guard segment == "ws#2" else { return ([], [:]) }
        // Map with a client capture: for each element the reference server `dup()`s the
        // promise the callback returned (`["push",["pipeline",N,[]]]`, then releases N), a
        // quirk of its map implementation that costs one extra import ID per element. Our
        // engine keeps the call result itself, so its imports for the three callback calls are
        // 1, 2, 3 instead of 2, 4, 6, and every later server import (the readable's pipe and
        // the `stream` writes) is 3 lower: pipe 4 instead of 7, writes 5...8 instead of
        // 8...11, writable writes 9...11 instead of 12...14. The client frames answering those
        // writes are renumbered the same way.
        let skip: Set<String> = [
            #"-> ["push",["pipeline",1,[]]]"#, #"-> ["release",1,1]"#,
            #"-> ["push",["pipeline",3,[]]]"#, #"-> ["release",3,1]"#,
            #"-> ["push",["pipeline",5,[]]]"#, #"-> ["release",5,1]"#,
        ]
        var replace: [String: String] = [
            #"-> ["resolve",12,[[["pipeline",2],["pipeline",4],["pipeline",6]]]]"#:
                #"["resolve",12,[[["pipeline",1],["pipeline",2],["pipeline",3]]]]"#,
            #"-> ["release",2,1]"#: #"["release",1,1]"#,
            #"-> ["release",4,1]"#: #"["release",2,1]"#,
            #"-> ["release",6,1]"#: #"["release",3,1]"#,
            #"-> ["resolve",20,["readable",7]]"#: #"["resolve",20,["readable",4]]"#,
            #"-> ["stream",["pipeline",7,["close"],[]]]"#: #"["stream",["pipeline",4,["close"],[]]]"#,
            #"-> ["release",7,1]"#: #"["release",4,1]"#,
        ]
        for chunk in 0..<3 {
            replace[#"-> ["stream",["pipeline",7,["write"],[\#(chunk)]]]"#] =
                #"["stream",["pipeline",4,["write"],[\#(chunk)]]]"#
        }
        for id in 8...14 {
            replace[#"<- ["resolve",\#(id),["undefined"]]"#] = #"["resolve",\#(id - 3),["undefined"]]"#
        }
        return (skip, replace)
    }
}

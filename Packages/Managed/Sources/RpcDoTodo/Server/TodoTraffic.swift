/// What a ``TodoServer`` has seen since it started or since ``TodoServer/resetTraffic()``:
/// connections served and Cap'n Web frames by kind, counted across restarts.
///
/// A client that pipelines a chain of calls sends its pushes and one `pull`, and waits once:
/// ``pulls`` is the number of answers clients waited for.
public struct TodoTraffic: Sendable, Hashable, CustomStringConvertible {
    /// Connections served: WebSocket sessions and HTTP batches.
    public var connections = 0
    /// Frames received from clients.
    public var framesReceived = 0
    /// Frames sent to clients.
    public var framesSent = 0
    /// `push` frames received: calls and property reads.
    public var pushes = 0
    /// `pull` frames received: answers a client asked for.
    public var pulls = 0
    /// `resolve` frames sent.
    public var resolves = 0
    /// `reject` frames sent.
    public var rejects = 0
    /// `release` frames received.
    public var releases = 0

    /// No traffic.
    public init() {}

    /// A one-line summary, e.g. `3 pushes, 1 pull, 1 resolve`.
    public var description: String {
        "\(connections) connections, \(framesReceived) frames in, \(framesSent) out: "
            + "\(pushes) pushes, \(pulls) pulls, \(resolves) resolves, \(rejects) rejects, \(releases) releases"
    }

    /// Counts one frame: `sent` by the server or received, with its text.
    mutating func record(sent: Bool, text: String) {
        if sent { framesSent += 1 } else { framesReceived += 1 }
        switch Self.kind(of: text) {
        case "push" where !sent: pushes += 1
        case "pull" where !sent: pulls += 1
        case "release" where !sent: releases += 1
        case "resolve" where sent: resolves += 1
        case "reject" where sent: rejects += 1
        default: break
        }
    }

    /// The message type of a frame: the first string of its JSON array.
    static func kind(of text: String) -> Substring? {
        let body = text.drop { $0 == "[" || $0 == " " }
        guard body.first == "\"" else { return nil }
        let name = body.dropFirst()
        guard let end = name.firstIndex(of: "\"") else { return nil }
        return name[..<end]
    }
}

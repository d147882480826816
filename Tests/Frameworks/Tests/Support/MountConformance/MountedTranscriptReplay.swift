import CapnWebConformance
import NIOHTTP1
import RpcTransport
import RpcTransportNIO

/// The reference client's side of the wire transcript, sent to a Cap'n Web endpoint mounted on
/// an application that serves `TestAPI` as its main object: each WebSocket segment over a
/// WebSocket of our own client, and the HTTP batch as one request to the batch route. Each
/// check returns what went wrong, empty when the server answered as the reference did (with the
/// adjustments of ``ServerRoleReplay``).
///
/// ```swift
/// let problems = try await MountedTranscriptReplay.webSocket(
///     segment: "ws#1", url: "ws://127.0.0.1:\(port)/test-api", authorization: "Bearer alice-token")
/// #expect(problems == [])
/// ```
public enum MountedTranscriptReplay {
    /// Opens a WebSocket to `url` carrying `authorization`, replays `segment`'s client frames
    /// through it and checks the server's, then closes it as the reference client did.
    ///
    /// - Returns: The server frames missing from the first run that did not arrive, frames the
    ///   server sent beyond the segment's, and adjustments that matched nothing.
    /// - Throws: What opening the WebSocket or sending a frame throws.
    public static func webSocket(segment: String, url: String, authorization: String) async throws -> [String] {
        var configuration = WebSocketClientConfiguration()
        configuration.headers.add(name: "authorization", value: authorization)
        let transport = try await WebSocketClient.connect(to: url, configuration: configuration)
        let peer = RawPeer(transport)
        let replay = ServerRoleReplay(segment: segment)
        let outcome = try await replay.run(on: peer)
        var problems: [String] = []
        if outcome.runCount <= 2 {
            problems.append("\(segment) has no frames")
        }
        if outcome.completed {
            let extra = try await replay.unexpectedFrames(on: peer, after: outcome)
            if extra != [] {
                problems.append("\(segment): unexpected server frames: \(String(describing: extra))")
            }
            if !outcome.unusedAdjustments.isEmpty {
                problems.append("\(segment): adjustments that match no frame: \(outcome.unusedAdjustments)")
            }
        } else {
            problems.append("\(segment): server frames missing: \(outcome.missing); unmatched: \(outcome.unmatched)")
        }
        await transport.close(code: .applicationError, reason: "RPC session was shut down by disposing the main stub")
        return problems
    }

    /// Posts the transcript's HTTP batch request to `path` of the application at `baseURL`
    /// (`http://host:port`), carrying `authorization`, and compares the response's lines with
    /// the reference response's as a multiset (the order is completion order).
    ///
    /// - Returns: A status other than 200, response lines missing and response lines beyond the
    ///   reference's.
    /// - Throws: What the HTTP client throws.
    public static func batch(baseURL: String, path: String, authorization: String) async throws -> [String] {
        let batch = ReferenceTranscript.batch
        var problems: [String] = []
        if batch.request.count != 16 || batch.response.count != 11 {
            problems.append("the transcript's batch has \(batch.request.count) request and \(batch.response.count) response lines")
        }
        let client = try HTTPClient(baseURL: baseURL)
        var headers = HTTPHeaders()
        headers.add(name: "authorization", value: authorization)
        let body = Array(batch.request.joined(separator: "\n").utf8)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(HTTPClientRequest(method: .POST, path: path, headers: headers, body: body))
        } catch {
            await client.close()
            throw error
        }
        await client.close()
        guard response.status == 200 else {
            return problems + ["the batch was answered with \(response.status): \(response.text ?? "")"]
        }
        var lines = (response.text ?? "").split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        var missing: [String] = []
        for expected in batch.response {
            if let index = lines.firstIndex(of: expected) {
                lines.remove(at: index)
            } else {
                missing.append(expected)
            }
        }
        if !missing.isEmpty {
            problems.append("batch responses missing: \(missing)")
        }
        if !lines.isEmpty {
            problems.append("unexpected batch responses: \(lines)")
        }
        return problems
    }
}

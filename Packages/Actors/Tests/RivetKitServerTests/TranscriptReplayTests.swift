import Foundation
import RivetKit
import RivetKitServer
import NIOHTTP1
import RpcTransportNIO
import Testing

@Suite("The actor server answers RivetKit's own client as in the transcripts")
struct TranscriptReplayTests {
    /// Replays one run: the client's HTTP requests and frames are sent as recorded, and our
    /// answers are compared with the recorded ones structurally (ids and timestamps are ours).
    @Test("Each recorded exchange gets the recorded answers", arguments: RivetTranscript.runs)
    func replay(run: String) async throws {
        let transcript = try RivetTranscript.load(run)
        let usesToken = transcript.entries("http_request").contains {
            $0.fields["headers"]?["authorization"] != nil
        }
        var configuration = ActorServerConfiguration(port: 0)
        configuration.token = usesToken ? "tok123" : nil
        // The recorded server offered the counter only.
        var registry = ActorRegistry()
        registry.register(DemoActors.counter)
        try await withActorServer(
            registry: registry, store: try SQLiteActorStore.inMemory(), configuration: configuration
        ) { server in
            let http = try HTTPClient(baseURL: server.endpoint)
            var ids: [String: String] = [:]
            var inbox: FrameInbox?
            var lastResponse: HTTPClientResponse?
            func substitute(_ text: String) -> String {
                ids.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
            }
            for entry in transcript.entries {
                switch entry.kind {
                case "http_request":
                    var headers = HTTPHeaders()
                    for (name, value) in entry.fields["headers"]?.objectValue ?? JSONObject()
                    where !["host", "connection", "content-length"].contains(name) {
                        headers.add(name: name, value: value.stringValue ?? "")
                    }
                    let method = HTTPMethod(rawValue: entry.string("method") ?? "GET")
                    lastResponse = try await http.execute(
                        HTTPClientRequest(
                            method: method, path: substitute(entry.string("url") ?? "/"), headers: headers,
                            body: Array((entry.string("body") ?? "").utf8)))
                case "http_response":
                    let response = try #require(lastResponse)
                    #expect(response.status == entry.fields["status"]?.intValue)
                    let expected = try JSONValue(parsing: entry.string("body") ?? "null")
                    let actual = try JSONValue(parsing: response.body)
                    if case .string(let recordedId)? = expected["actor"]?["actor_id"],
                        case .string(let ourId)? = actual["actor"]?["actor_id"]
                    {
                        ids[recordedId] = ourId
                    }
                    #expect(Self.normalized(actual) == Self.normalized(expected), "\(run): \(entry.fields)")
                case "ws_upgrade":
                    let offered = (entry.fields["headers"]?["sec-websocket-protocol"]?.stringValue ?? "")
                        .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    var wsConfiguration = WebSocketClientConfiguration()
                    wsConfiguration.subprotocols = offered
                    let url = "ws://127.0.0.1:\(server.port)" + substitute(entry.string("url") ?? "/")
                    inbox = FrameInbox(try await WebSocketClient.connect(to: url, configuration: wsConfiguration))
                case "ws_open":
                    #expect(inbox?.subprotocol == entry.string("protocol"))
                case "ws_send":
                    let socket = try #require(inbox)
                    let expected = try RivetMessageCodec.decodeServerMessage(substitute(entry.string("frame") ?? ""))
                    let actual = try await socket.nextMessage()
                    if case .initialize(let expectedActor, _) = expected, case .initialize(let actualActor, let connection) = actual {
                        #expect(actualActor == expectedActor)
                        #expect(connection.hasPrefix("conn_"))
                    } else {
                        #expect(actual == expected, "\(run)")
                    }
                case "ws_recv":
                    let socket = try #require(inbox)
                    try await socket.transport.send(.text(entry.string("frame") ?? ""))
                case "ws_close":
                    let socket = try #require(inbox)
                    await socket.transport.close(code: .normal, reason: entry.string("reason") ?? "")
                default:
                    break
                }
            }
            await http.close()
        }
    }

    /// A response body with what legitimately differs between servers blanked: timestamps,
    /// ids, the namespace id and the version.
    static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(
                    object.map { key, member -> (String, JSONValue) in
                        switch key {
                        case "create_ts", "connectable_ts", "start_ts", "actor_id", "namespace_id", "version":
                            return (key, member.isNull ? .null : "*")
                        default:
                            return (key, normalized(member))
                        }
                    }))
        case .array(let elements):
            return .array(elements.map(normalized))
        default:
            return value
        }
    }
}

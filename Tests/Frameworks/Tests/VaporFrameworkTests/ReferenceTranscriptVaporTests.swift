import CapnWebConformance
import MountConformance
import Testing

@Suite("The reference Cap'n Web client's frames through the Vapor mount", .timeLimit(.minutes(2)))
struct ReferenceTranscriptVaporTests {
    @Test(
        "each WebSocket segment of the reference client's transcript, sent through the mount behind the token guard, is answered with the reference server's frames",
        arguments: ServerRoleReplay.segments)
    func webSocketSegment(_ segment: String) async throws {
        try await MountedApp.run { port in
            let problems = try await MountedTranscriptReplay.webSocket(
                segment: segment, url: "ws://127.0.0.1:\(port)/test-api", authorization: "Bearer alice-token")
            #expect(problems == [])
        }
    }

    @Test("the reference client's HTTP batch, posted to the mount's batch route behind the token guard, gets the reference response")
    func batch() async throws {
        try await MountedApp.run { port in
            let problems = try await MountedTranscriptReplay.batch(
                baseURL: "http://127.0.0.1:\(port)", path: "/test-api", authorization: "Bearer alice-token")
            #expect(problems == [])
        }
    }
}

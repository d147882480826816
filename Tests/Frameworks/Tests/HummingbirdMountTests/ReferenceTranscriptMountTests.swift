import CapnWebConformance
import Foundation
import MountConformance
import Testing

@Suite("The reference Cap'n Web client's frames through the Hummingbird mount", .timeLimit(.minutes(2)))
struct ReferenceTranscriptMountTests {
    @Test(
        "each WebSocket segment of the reference client's transcript, sent through the mount behind the auth middleware, is answered with the reference server's frames",
        arguments: ServerRoleReplay.segments)
    func webSocketSegment(_ segment: String) async throws {
        try await MountedApplication.run { app in
            let problems = try await MountedTranscriptReplay.webSocket(
                segment: segment, url: app.testAPIWebSocketURL.absoluteString, authorization: "Bearer alice-token")
            #expect(problems == [])
        }
    }

    @Test("the reference client's HTTP batch, posted to the mount's batch route behind the auth middleware, gets the reference response")
    func batch() async throws {
        try await MountedApplication.run { app in
            let problems = try await MountedTranscriptReplay.batch(
                baseURL: app.baseURL, path: "/test-api", authorization: "Bearer alice-token")
            #expect(problems == [])
        }
    }
}

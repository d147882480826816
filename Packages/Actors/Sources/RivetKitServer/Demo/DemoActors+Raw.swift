import RivetKit

extension DemoActors {
    /// The counter's raw HTTP handler: `GET /count` answers `{"count": N}`, anything else 404.
    @Sendable static func counterRequest(_ context: ActorRawContext<Counter>, _ request: ActorRequest) async throws
        -> ActorResponse
    {
        guard request.method == "GET", request.path == "/count" else { return ActorResponse(status: 404) }
        return try ActorResponse.json(["count": try context.state().count])
    }

    /// The counter's raw WebSocket handler: each text message comes back as
    /// `count:<N>:<text>`, with the count at the time it arrived.
    @Sendable static func counterWebSocket(_ context: ActorRawContext<Counter>, _ socket: ActorWebSocket) async throws {
        for await message in socket.messages {
            guard case .text(let text) = message else { continue }
            try await socket.send(text: "count:\(try context.state().count):\(text)")
        }
    }
}

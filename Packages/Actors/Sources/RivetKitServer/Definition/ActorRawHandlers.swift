/// The raw handlers of an actor type (``ActorDefinition/onRequest(_:)``,
/// ``ActorDefinition/onWebSocket(_:)``); each `nil` when the type has none.
struct ActorRawHandlers<State: Codable & Sendable>: Sendable {
    var request: (@Sendable (ActorRawContext<State>, ActorRequest) async throws -> ActorResponse)?
    var webSocket: (@Sendable (ActorRawContext<State>, ActorWebSocket) async throws -> Void)?
}

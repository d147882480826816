import RivetKit

extension DemoActors {
    /// The forwarder's state: how many increments it passed on.
    public struct Forwarder: Codable, Sendable, Hashable {
        /// How many increments the counters answered.
        public var forwarded: Int
    }

    /// The forwarder actor type: `incrementCounter(key, by)` calls `increment(by)` on the
    /// `counter` of that key through `context.client` (creating it when there is none) and
    /// returns the counter's answer; the counter's error, such as `user.overflow`, comes back as
    /// the forwarder's. `forwarded()` counts the increments passed on.
    public static let forwarder = ActorDefinition("forwarder", initialState: Forwarder(forwarded: 0))
        .action("incrementCounter", incrementCounter)
        .action("forwarded") { context in context.state.forwarded }

    static func incrementCounter(_ context: inout ActorContext<Forwarder>, key: String, by: Int) async throws -> Int {
        let count: Int = try await context.client.getOrCreate("counter", key: [key]).action("increment", arguments: [by])
        context.state.forwarded &+= 1
        return count
    }
}

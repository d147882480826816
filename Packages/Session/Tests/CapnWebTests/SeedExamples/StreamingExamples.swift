import Foundation
import Synchronization
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

// Swift spelling: this package builds with the ExistentialAny upcoming feature, so the seed's
// `Error` as a type is written `any Error` (marked where it occurs).

// Seed 001's "Streaming": a server stream read as an `AsyncThrowingStream`, and cancelling the
// task that reads it. (The seed's `Ref: AsyncSequence` form, `for try await x in ref`, is in
// its type reference only; its examples all await the stream with a type annotation, as here.)

@Suite("Seed 001: streaming")
struct StreamingExamples {
    @Test("events.subscribe(topic:) awaited as AsyncThrowingStream<Event, Error> yields the server's events in order")
    func asyncSequence() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession<API>.connect(to: server.webSocketURL)
            let seen = Recorder<String>()  // Adapted: the test records what the loop prints.

            // Direct type annotation on the stream
            let events: AsyncThrowingStream<Event, any Error> =  // Adapted: `any Error`.
                try await session.api.events.subscribe(topic: "updates")

            for try await event in events {
                print("Event: \(event.name)")
                seen.append(event.name)  // Adapted: recorded for the test.
            }

            #expect(seen.all == ["updates-1", "updates-2", "updates-3"])
            #expect(backend.count("events.subscribe") == 1)
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("cancelling the task that reads a stream stops the server's producer")
    func cancellation() async throws {
        try await withSeedServer { server, backend, peers in
            // Adapted: the server's stream goes on after its first three events, so only
            // cancelling ends it.
            backend.state.withLock { $0.endlessEvents = true }
            let session = try await RpcSession<API>.connect(to: server.webSocketURL)
            // Adapted: the seed's `process(_:)` is not declared there; here it records the event.
            let processed = Recorder<String>()
            @Sendable func process(_ event: Event) { processed.append(event.name) }

            let task = Task {
                let stream: AsyncThrowingStream<Event, any Error> =  // Adapted: `any Error`.
                    try await session.api.events.subscribe(topic: "updates")

                for try await event in stream {
                    process(event)
                }
            }

            // Adapted: "Later" is once the three events were processed.
            #expect(await waitUntil { processed.all.count >= 3 })

            // Later: cancellation propagates to server
            task.cancel()

            // The reader is gone: the server's next write is refused and its producer stops.
            #expect(await waitUntil { backend.state.withLock { $0.streamsEnded } == 1 })
            _ = await task.result
            #expect(Array(processed.all.prefix(3)) == ["updates-1", "updates-2", "updates-3"])
            await peers.expectSettled(session)
            await session.close()
        }
    }
}

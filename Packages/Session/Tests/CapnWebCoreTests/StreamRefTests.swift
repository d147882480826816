import Synchronization
import Testing
import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
@testable import CapnWebCore

/// A message of the chat stream.
private struct ChatMessage: Codable, Sendable, Equatable {
    let text: String
}

/// A main object whose member `chat` holds a room; the room's member `messages` is a stream of
/// the messages given, and its method `tail(n)` a stream of the numbers 1 to n, or (for
/// `endless`) a stream that never ends. It counts how many streams it handed out.
private final class ChatAPI: RpcTarget {
    let room: Room

    init(messages: [String]) {
        room = Room(messages: messages)
    }

    func property(_ name: String) async throws -> RpcPayload {
        name == "chat" ? .stub(RpcStub(room)) : .undefined
    }

    final class Room: RpcTarget {
        let messages: [String]
        private let served = Mutex(0)
        /// The continuation of the last endless stream, kept so the stream stays open.
        private let endless = Mutex<AsyncThrowingStream<RpcPayload, any Error>.Continuation?>(nil)

        init(messages: [String]) {
            self.messages = messages
        }

        /// How many streams were handed out.
        var streamsServed: Int { served.withLock { $0 } }

        func property(_ name: String) async throws -> RpcPayload {
            guard name == "messages" else { return .undefined }
            served.withLock { $0 += 1 }
            let chunks = try messages.map { try RpcPayload(encoding: ChatMessage(text: $0)) }
            return .readable(RpcReadableStream(elements: chunks))
        }

        func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
            served.withLock { $0 += 1 }
            switch method {
            case "endless":
                let (stream, continuation) = RpcReadableStream.makeStream()
                for value in 1...3 { continuation.yield(.integer(Int64(value))) }
                endless.withLock { $0 = continuation }
                return .readable(stream)
            case "notAStream":
                return .integer(1)
            default:
                throw RpcErrorValue.notAFunction(method)
            }
        }

        func dispose() {
            endless.withLock { $0?.finish() }
        }
    }
}

/// `Ref<T>` is an `AsyncSequence` of `T.Element` when `T` is a stream type: iterating sends the
/// read and yields the stream's chunks, decoded.
@Suite("Stream refs as AsyncSequence")
struct StreamRefTests {
    /// A client and a server serving a ``ChatAPI`` of `messages`, both registered with `peers`.
    private static func pair(
        _ peers: CheckedPeers, _ messages: [String] = ["hi", "there", "bye"]
    ) -> (RpcSession<Any>, RpcSession<Any>, ChatAPI) {
        let (a, b) = InMemoryTransport.makePair()
        let api = ChatAPI(messages: messages)
        let server = peers.startServer(transport: b, main: api)
        let client = peers.startClient(transport: a)
        return (client, server, api)
    }

    @Test("for try await over a stream-typed member ref yields every message, decoded, in order")
    func iteratesMessages() async throws {
        try await withCheckedPeers { peers in
            let (client, _, api) = Self.pair(peers)
            do {
                let messages = Ref<AsyncThrowingStream<ChatMessage, any Error>>(client.api.chat.messages)
                var received: [String] = []
                for try await message in messages {
                    received.append(message.text)
                }
                #expect(received == ["hi", "there", "bye"])
                #expect(api.room.streamsServed == 1)
            }
        }
    }

    @Test("a stream ref is lazy: nothing is read until it is iterated")
    func lazyUntilIterated() async throws {
        try await withCheckedPeers { peers in
            let (client, _, api) = Self.pair(peers)
            do {
                let messages = Ref<RpcReadableStream>(client.api.chat.messages)
                // A round trip: anything sent before it has been handled by then.
                let room = client.api.chat
                _ = await room.settle()
                #expect(api.room.streamsServed == 0)
                var count = 0
                for try await chunk in messages {
                    guard case .object = chunk else {
                        Issue.record("expected an object chunk, got \(chunk)")
                        break
                    }
                    count += 1
                }
                #expect(count == 3)
                #expect(api.room.streamsServed == 1)
            }
        }
    }

    @Test("leaving the loop early stops reading a stream that never ends, and the tables empty")
    func breakingOutReleasesTheStream() async throws {
        try await withCheckedPeers { peers in
            let (client, _, _) = Self.pair(peers)
            do {
                // Built first: as the argument of the initializer, the call would pick an awaiting
                // overload.
                let call = client.api.chat.endless()
                let numbers = Ref<AsyncStream<Int>>(call)
                var seen: [Int] = []
                for try await number in numbers {
                    seen.append(number)
                    if number == 2 { break }
                }
                #expect(seen == [1, 2])
            }
        }
    }

    @Test("iterating a ref whose value is not a stream fails with invalidResponse")
    func notAStreamFails() async throws {
        try await withCheckedPeers { peers in
            let (client, _, _) = Self.pair(peers)
            do {
                let call = client.api.chat.notAStream()
                let numbers = Ref<AsyncStream<Int>>(call)
                do {
                    for try await _ in numbers {}
                    Issue.record("iterating a number succeeded")
                } catch let error as RpcError {
                    guard case .invalidResponse = error else {
                        Issue.record("expected invalidResponse, got \(error)")
                        return
                    }
                }
            }
        }
    }
}

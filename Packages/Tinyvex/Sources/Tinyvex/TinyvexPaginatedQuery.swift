#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import RpcWire
import Synchronization
import TinyvexProtocol

/// A paginated live query, from ``TinyvexClient/subscribePaginated(_:params:initialNumItems:as:)``:
/// the items of every loaded page, concatenated, with a ``TinyvexPaginationStatus``, and
/// ``loadMore(_:)`` for the next page, as Convex's `usePaginatedQuery`.
///
/// ```swift
/// let messages = client.subscribePaginated("messages.page", params: ["channel": "general"], initialNumItems: 20, as: Message.self)
/// let cancellable = messages.publisher.sink(receiveCompletion: { _ in }, receiveValue: { print($0.results.count, $0.status) })
/// messages.loadMore(20)
/// for try await shown in messages { print(shown.results.map(\.text)) }
/// ```
///
/// Each page is a live subscription of its own. Once a page has arrived its end is pinned, so
/// while documents are inserted and deleted it grows or shrinks in place: no item is skipped or
/// shown twice across pages. The query lives while it is held, or while its publisher has a
/// subscriber or it is iterated; ``cancel()`` ends it at once. A page the server refuses, or
/// one that does not decode as `Item`s, ends the publisher with the ``TinyvexError`` and the
/// iteration by throwing it.
public final class TinyvexPaginatedQuery<Item: Decodable & Sendable & SendableMetatype>: Sendable, AsyncSequence {
    /// What each iteration yields.
    public typealias Element = TinyvexPaginatedResults<Item>
    /// What ends an iteration early.
    public typealias Failure = any Error

    private struct Shell {
        var state = PaginationState<Item>()
        /// Each open subscription's key and listener id on the client, by token.
        var listeners: [UInt64: (key: String, id: UInt64)] = [:]
        /// Tokens closed before their subscription was opened.
        var closedEarly: Set<UInt64> = []
        /// The iterations in progress.
        var readers: [UInt64: AsyncThrowingStream<Element, any Error>.Continuation] = [:]
        var nextReader: UInt64 = 0
        /// What is waiting to be emitted, newest last, and whether an emission is running.
        var pending: [Emission] = []
        var emitting = false
        /// Whether the ending was queued (nothing is emitted after it).
        var ended = false
        /// The last results emitted.
        var shown: Element?
    }

    private enum Emission: Sendable {
        case results(Element)
        case failure(TinyvexError)
        case finished
    }

    private let client: TinyvexClient
    private let name: String
    private let params: JSONObject
    private let shell = Mutex(Shell())
    private let box = SubjectBox<Element, TinyvexError>()

    init(client: TinyvexClient, name: String, params: any Encodable, initialNumItems: Int) {
        self.client = client
        self.name = name
        let encoded: Result<JSONObject, TinyvexError>
        do {
            guard case .object(let object) = try JSONValueEncoder().encode(params) else {
                throw TinyvexError.decoding("the params of a paginated query must be an object")
            }
            encoded = .success(object)
        } catch let error as TinyvexError {
            encoded = .failure(error)
        } catch {
            encoded = .failure(.decoding("the params do not encode: \(error)"))
        }
        self.params = (try? encoded.get()) ?? [:]
        if case .failure(let error) = encoded {
            update { ($0.fail(error), true) }
        } else {
            update { ($0.start(numItems: Swift.max(1, initialNumItems)), true) }
        }
    }

    deinit {
        let (actions, listeners) = shell.withLock { shell in (shell.state.cancel(), shell.listeners) }
        for case .unsubscribe(let token) in actions {
            if let listener = listeners[token] { client.detach(key: listener.key, listenerID: listener.id) }
        }
    }

    /// What the query shows now.
    public var current: Element {
        shell.withLock { $0.state.snapshot }
    }

    /// Whether every loaded page shows the value of its pinned subscription (for tests).
    var isSettled: Bool {
        shell.withLock { $0.state.isSettled }
    }

    /// Loads the next page of `numItems` items (as many as the server allows, at least 1),
    /// when the status is ``TinyvexPaginationStatus/canLoadMore``.
    ///
    /// - Returns: Whether a page was asked for (not while one is loading or after the end).
    @discardableResult
    public func loadMore(_ numItems: Int) -> Bool {
        var asked = false
        update { state in
            guard let actions = state.loadMore(numItems: Swift.max(1, numItems)) else { return ([], false) }
            asked = true
            return (actions, true)
        }
        return asked
    }

    /// Ends the query: every page is unsubscribed, the publisher finishes and iterations end.
    public func cancel() {
        update { ($0.cancel(), true) }
    }

    /// The results as a publisher: the current ones, then each change; delivered where the
    /// client's ``TinyvexClientConfiguration/delivery`` says (the main queue by default). It
    /// finishes when the query is cancelled and fails with the error that ended it.
    public var publisher: AnyPublisher<Element, TinyvexError> {
        let deliverer = client.deliverer
        return Deferred { [self] () -> AnyPublisher<Element, TinyvexError> in
            deliverer.publisherStarted()
            let ended = Atomic<Bool>(false)
            let end: @Sendable () -> Void = {
                if !ended.exchange(true, ordering: .relaxed) { deliverer.publisherEnded() }
            }
            // Holds the query while a subscriber is there.
            return deliverer.deliver(
                box.subject
                    .compactMap { $0 }
                    .handleEvents(receiveCompletion: { _ in end() }, receiveCancel: { withExtendedLifetime(self) { end() } }))
        }
        .eraseToAnyPublisher()
    }

    /// An iteration of the results: the current ones, then each change (a slow reader gets the
    /// newest). It ends when the query is cancelled and throws the error that ended it.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let reader = shell.withLock { shell -> UInt64? in
            switch shell.state.ending {
            case .failed(let error):
                continuation.finish(throwing: error)
                return nil
            case .cancelled:
                continuation.finish()
                return nil
            case nil:
                shell.nextReader += 1
                shell.readers[shell.nextReader] = continuation
                if let shown = shell.shown { continuation.yield(shown) }
                return shell.nextReader
            }
        }
        if let reader {
            continuation.onTermination = { [weak self] _ in
                _ = self?.shell.withLock { $0.readers.removeValue(forKey: reader) }
            }
        }
        return Iterator(query: self, base: stream.makeAsyncIterator())
    }

    /// Iterates a ``TinyvexPaginatedQuery``, holding it meanwhile.
    public struct Iterator: AsyncIteratorProtocol {
        let query: TinyvexPaginatedQuery
        var base: AsyncThrowingStream<Element, any Error>.AsyncIterator

        /// The next results, or `nil` once the query was cancelled.
        public mutating func next() async throws -> Element? {
            try await base.next()
        }
    }

    // MARK: The shell

    /// Runs a transition, then (outside the lock) opens and closes the subscriptions it asks
    /// for and emits what the query shows when it changed.
    private func update(_ transition: (inout PaginationState<Item>) -> (actions: [PaginationState<Item>.Action], changed: Bool)) {
        let actions = shell.withLock { shell in
            guard !shell.ended else { return [PaginationState<Item>.Action]() }
            let (actions, changed) = transition(&shell.state)
            switch shell.state.ending {
            case .failed(let error):
                shell.ended = true
                shell.pending.append(.failure(error))
            case .cancelled:
                shell.ended = true
                shell.pending.append(.finished)
            case nil:
                if changed { shell.pending.append(.results(shell.state.snapshot)) }
            }
            return actions
        }
        perform(actions)
        emit()
    }

    private func perform(_ actions: [PaginationState<Item>.Action]) {
        for action in actions {
            switch action {
            case .subscribe(let token, let options):
                var pageParams = params
                var opts: JSONObject = ["numItems": .integer(Int64(options.numItems))]
                if let cursor = options.cursor { opts["cursor"] = .string(cursor) }
                if let endCursor = options.endCursor { opts["endCursor"] = .string(endCursor) }
                pageParams["paginationOpts"] = .object(opts)
                let query: (key: String, params: JSONValue)
                do {
                    query = try TinyvexClient.canonical(name, JSONValue.object(pageParams))
                } catch {
                    update { ($0.fail(error), true) }
                    return
                }
                let listener = client.attach(key: query.key, name: name, params: query.params) { [weak self] event in
                    self?.receive(token: token, event)
                }
                let late = shell.withLock { shell -> Bool in
                    if shell.closedEarly.remove(token) != nil { return true }
                    shell.listeners[token] = (query.key, listener)
                    return false
                }
                if late { client.detach(key: query.key, listenerID: listener) }
            case .unsubscribe(let token):
                let listener = shell.withLock { shell -> (key: String, id: UInt64)? in
                    guard let listener = shell.listeners.removeValue(forKey: token) else {
                        shell.closedEarly.insert(token)
                        return nil
                    }
                    return listener
                }
                if let listener { client.detach(key: listener.key, listenerID: listener.id) }
            }
        }
    }

    private func receive(token: UInt64, _ event: SubscriptionTable.Event) {
        switch event {
        case .value(let value):
            do {
                let result = try JSONValueDecoder().decode(TinyvexPaginationResult<Item>.self, from: value)
                update { $0.received(token: token, result, raw: value) }
            } catch {
                update { ($0.fail(.decoding("\(error)")), true) }
            }
        case .failure(let error):
            update { ($0.fail(error), true) }
        }
    }

    /// Emits what is pending, in order, from one thread at a time: a transition made while
    /// emitting (a subscriber calling ``loadMore(_:)``, say) is emitted by the same loop after
    /// what came before it.
    private func emit() {
        let claimed = shell.withLock { shell -> Bool in
            guard !shell.emitting, !shell.pending.isEmpty else { return false }
            shell.emitting = true
            return true
        }
        guard claimed else { return }
        while true {
            let next = shell.withLock { shell -> (Emission, [AsyncThrowingStream<Element, any Error>.Continuation])? in
                guard !shell.pending.isEmpty else {
                    shell.emitting = false
                    return nil
                }
                // What the query shows is whole in each emission: only the newest one counts.
                let emission = shell.pending.removeLast()
                shell.pending.removeAll()
                let readers = Array(shell.readers.values)
                switch emission {
                case .results(let results): shell.shown = results
                case .failure, .finished: shell.readers = [:]
                }
                return (emission, readers)
            }
            guard let (emission, readers) = next else { return }
            switch emission {
            case .results(let results):
                box.subject.send(results)
                for reader in readers { reader.yield(results) }
            case .failure(let error):
                box.subject.send(completion: .failure(error))
                for reader in readers { reader.finish(throwing: error) }
            case .finished:
                box.subject.send(completion: .finished)
                for reader in readers { reader.finish() }
            }
        }
    }
}

import CoreMetrics
import NIOCore
import Synchronization

/// What a running server has open: its connections, its WebSocket transports and its batches in
/// flight, and whether it is shutting down. Shared by the event loops and the server's tasks.
final class ServerRegistry: Sendable {
    private struct State {
        var shuttingDown = false
        var channels: [ObjectIdentifier: any Channel] = [:]
        var transports: [ObjectIdentifier: WebSocketTransport] = [:]
        var inFlightBatches = 0
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID: UInt64 = 0

        var isIdle: Bool { inFlightBatches == 0 && channels.isEmpty }

        mutating func takeIdleWaiters() -> [CheckedContinuation<Void, Never>] {
            guard isIdle else { return [] }
            defer { idleWaiters = [:] }
            return Array(idleWaiters.values)
        }
    }

    private let state = Mutex(State())
    private let metrics: TransportServerMetrics?

    init(metrics: TransportServerMetrics? = nil) {
        self.metrics = metrics
    }

    /// Whether a shutdown has begun.
    var isShuttingDown: Bool {
        state.withLock { $0.shuttingDown }
    }

    /// Records an accepted connection; `false` when the server is shutting down.
    func register(_ channel: any Channel) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.shuttingDown else { return false }
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
        if accepted {
            metrics?.connectionsOpen.increment()
            channel.closeFuture.whenComplete { [self] _ in
                unregister(channel)
            }
        }
        return accepted
    }

    private func unregister(_ channel: any Channel) {
        metrics?.connectionsOpen.decrement()
        let waiters = state.withLock { state in
            state.channels[ObjectIdentifier(channel)] = nil
            return state.takeIdleWaiters()
        }
        resume(waiters)
    }

    /// Records a WebSocket connection; `false` when the server is shutting down.
    func register(_ transport: WebSocketTransport) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.shuttingDown else { return false }
            state.transports[ObjectIdentifier(transport)] = transport
            return true
        }
        if accepted {
            metrics?.webSocketsOpen.increment()
            transport.closedFuture.whenComplete { [self] _ in
                _ = state.withLock { $0.transports.removeValue(forKey: ObjectIdentifier(transport)) }
                metrics?.webSocketsOpen.decrement()
            }
        }
        return accepted
    }

    /// Counts a batch request in; `false` when the server is shutting down.
    func beginBatch() -> Bool {
        state.withLock { state -> Bool in
            guard !state.shuttingDown else { return false }
            state.inFlightBatches += 1
            return true
        }
    }

    /// Counts a batch request out once its answer is written.
    func endBatch() {
        let waiters = state.withLock { state in
            state.inFlightBatches -= 1
            return state.takeIdleWaiters()
        }
        resume(waiters)
    }

    /// Marks the shutdown; returns the open WebSocket transports and connections.
    func beginShutdown() -> (transports: [WebSocketTransport], channels: [any Channel]) {
        state.withLock { state in
            state.shuttingDown = true
            return (Array(state.transports.values), Array(state.channels.values))
        }
    }

    /// The connections still open.
    var openChannels: [any Channel] {
        state.withLock { Array($0.channels.values) }
    }

    /// Waits until no connection is open and no batch is in flight, or the task is cancelled.
    func waitUntilIdle() async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isIdle || Task.isCancelled {
                        return true
                    }
                    state.idleWaiters[id] = continuation
                    return false
                }
                if resumeNow {
                    continuation.resume()
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.idleWaiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    private func resume(_ waiters: [CheckedContinuation<Void, Never>]) {
        for waiter in waiters {
            waiter.resume()
        }
    }
}

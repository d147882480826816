internal import CapnWeb

/// Awaits the value of a `capnweb call` expression and makes it printable: references inside
/// literal arrays and objects are awaited (all at once), and readable streams are read to the
/// end and replaced by the array of their chunks.
enum CallResult {
    /// The outcome of awaiting `value`.
    static func settle(_ value: CallValue) async -> CallOutcome {
        let settled: CallOutcome
        switch value {
        case .ref(let ref):
            settled = await settle(ref)
        case .payload(let payload):
            settled = await settleEmbedded(payload)
        }
        guard case .value(let payload) = settled else { return settled }
        return await readStreams(payload)
    }

    /// Awaits one reference.
    private static func settle(_ ref: Ref<Any>) async -> CallOutcome {
        switch await ref.settle() {
        case .resolved(let payload): .value(payload)
        case .rejected(let error): .rejected(name: error.name, message: error.message)
        case .failed(let error): CallOutcome(error)
        }
    }

    /// Awaits the stubs inside a value built here (`[square(2), square(3)]`), concurrently, so
    /// that their results come back together.
    private static func settleEmbedded(_ payload: RpcPayload) async -> CallOutcome {
        switch payload {
        case .stub(let stub):
            return await settle(Ref<Any>(stub))
        case .array(let elements):
            switch await settleAll(elements) {
            case .success(let values): return .value(.array(values))
            case .failure(let failure): return failure.outcome
            }
        case .object(let members):
            switch await settleAll(members.map(\.value)) {
            case .success(let values):
                return .value(.object(zip(members, values).map { RpcPayload.Member($0.key, $1) }))
            case .failure(let failure):
                return failure.outcome
            }
        default:
            return .value(payload)
        }
    }

    /// Settles `payloads` concurrently; the first failure in order wins.
    private static func settleAll(_ payloads: [RpcPayload]) async -> Result<[RpcPayload], Failure> {
        let outcomes = await withTaskGroup(of: (Int, CallOutcome).self) { group in
            for (index, payload) in payloads.enumerated() {
                group.addTask { (index, await settleEmbedded(payload)) }
            }
            var outcomes = [CallOutcome?](repeating: nil, count: payloads.count)
            for await (index, outcome) in group {
                outcomes[index] = outcome
            }
            return outcomes
        }
        var values: [RpcPayload] = []
        values.reserveCapacity(outcomes.count)
        for outcome in outcomes {
            switch outcome {
            case .value(let value)?: values.append(value)
            case let other?: return .failure(Failure(outcome: other))
            case nil: return .failure(Failure(outcome: .failed("a value was lost")))
            }
        }
        return .success(values)
    }

    /// A failed outcome, as a `Result` failure.
    private struct Failure: Error {
        /// The outcome.
        var outcome: CallOutcome
    }

    /// Reads every readable stream in `payload` (at the top, or inside arrays and objects) and
    /// puts the array of its chunks in its place.
    private static func readStreams(_ payload: RpcPayload) async -> CallOutcome {
        do {
            return .value(try await read(payload))
        } catch let error as RpcError {
            return CallOutcome(error)
        } catch let error as RpcErrorValue {
            return .rejected(name: error.name, message: error.message)
        } catch {
            return .failed("the stream failed: \(error)")
        }
    }

    /// `payload` with its streams read.
    private static func read(_ payload: RpcPayload) async throws -> RpcPayload {
        switch payload {
        case .readable(let stream):
            var chunks: [RpcPayload] = []
            for try await chunk in stream {
                chunks.append(try await read(chunk))
            }
            return .array(chunks)
        case .array(let elements):
            var values: [RpcPayload] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                values.append(try await read(element))
            }
            return .array(values)
        case .object(let members):
            var values: [RpcPayload.Member] = []
            values.reserveCapacity(members.count)
            for member in members {
                values.append(RpcPayload.Member(member.key, try await read(member.value)))
            }
            return .object(values)
        default:
            return payload
        }
    }
}

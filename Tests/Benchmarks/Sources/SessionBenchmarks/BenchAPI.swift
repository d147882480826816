import CapnWeb
import Synchronization

/// The main object the session server exposes.
///
/// - `square(text)` returns its 128-byte string argument unchanged: one call, one argument
///   and one result of the message size, the session's counterpart of an echo. It does not
///   suspend, so it is answered from ``callImmediately(_:with:)``, on the connection's loop.
/// - `squareAsync(text)` does the same from the `async` ``call(_:with:)``: the cost of the task
///   a call that may suspend runs in.
/// - `makeCounter(start)` returns a ``BenchCounter`` by reference, for the pipelined chain.
final class BenchAPI: RpcTarget {
    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        switch method {
        case "square":
            return .string(try arguments.decode(0, as: String.self))
        case "makeCounter":
            return .stub(RpcStub(BenchCounter(value: try arguments.decode(0, default: 0))))
        default:
            return nil
        }
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "squareAsync":
            return .string(try arguments.decode(0, as: String.self))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// A counter held by reference: `increment(by)` adds and returns the new value.
final class BenchCounter: RpcTarget {
    private let value: Mutex<Int>

    init(value: Int) {
        self.value = Mutex(value)
    }

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        guard method == "increment" else { return nil }
        let step = try arguments.decode(0, default: 1)
        return .integer(Int64(value.withLock { value in
            value += step
            return value
        }))
    }
}

import CapnWebCore
import Synchronization

/// The main object the fuzzed server session exposes: a small API in the spirit of the
/// conformance test API, so that seeds taken from the reference transcript reach real methods.
///
/// | member | behaviour |
/// | --- | --- |
/// | `square(n)` | `n * n` |
/// | `add(a, b)` | `a + b` for numbers |
/// | `echo(x)` | `x` |
/// | `returnStub(s)` | the stub it was given |
/// | `makeCounter(start = 0)` | a ``FuzzCounter`` |
/// | `getUser(id)` / `makeUsers(n)` | one ``FuzzUser`` / an array of `n` (at most 8) |
/// | `incrementCounter(c, amount)` | calls `c.increment(amount)` and returns its result |
/// | `callback(fn, x)` | calls `fn(x)` and returns its result |
/// | `hang()` | settles only when cancelled (the session ends) |
/// | `throwError(msg)` | rejects with `Error: msg` |
/// | `generateFibonacci(n)` | the first `n` (at most 64) Fibonacci numbers |
/// | `returnNull()` / `returnUndefined()` | `null` / `undefined` |
/// | `makeStream(n)` | a readable stream of `0..<n` (at most 8) |
/// | `readAll(stream)` | the chunks of the readable stream it was given |
/// | `writeTo(writable, n)` | writes `n` (at most 8) chunks and closes the stream |
final class FuzzAPI: RpcTarget {
    private let disposal = DisposeOnce()

    init() { FuzzObjects.created() }
    deinit { FuzzObjects.destroyed() }

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        switch method {
        case "square":
            let n = Self.number(arguments.value(at: 0))
            return .double(n * n)
        case "add":
            return .double(Self.number(arguments.value(at: 0)) + Self.number(arguments.value(at: 1)))
        case "echo":
            return arguments.value(at: 0)
        case "returnStub":
            return .stub(try arguments.stub(0))
        case "makeCounter":
            return .stub(RpcStub(FuzzCounter(start: Self.number(arguments.value(at: 0)))))
        case "getUser":
            return .stub(RpcStub(FuzzUser(id: arguments.value(at: 0))))
        case "makeUsers":
            let count = Self.count(arguments.value(at: 0), limit: 8)
            return .array((0..<count).map { .stub(RpcStub(FuzzUser(id: .integer(Int64($0 + 1))))) })
        case "throwError":
            throw RpcErrorValue(name: "Error", message: "\(arguments.value(at: 0))")
        case "generateFibonacci":
            var (current, next) = (0.0, 1.0)
            var numbers: [RpcPayload] = []
            for _ in 0..<Self.count(arguments.value(at: 0), limit: 64) {
                numbers.append(.double(current))
                (current, next) = (next, current + next)
            }
            return .array(numbers)
        case "returnNull":
            return .null
        case "returnUndefined":
            return .undefined
        default:
            return nil
        }
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "incrementCounter":
            let counter = Ref<Any>(try arguments.stub(0))
            return try await counter.increment(arguments.value(at: 1)).payload()
        case "callback":
            let function = Ref<Any>(try arguments.stub(0))
            return try await function.call([arguments.value(at: 1)]).payload()
        case "hang":
            // Sleeps until the task is cancelled, which ending the session does.
            try await Task.sleep(for: .seconds(86_400))
            preconditionFailure("hang() outlived a day")
        case "makeStream":
            let count = Self.count(arguments.value(at: 0), limit: 8)
            return .readable(RpcReadableStream(elements: (0..<count).map { .integer(Int64($0)) }))
        case "readAll":
            guard case .readable(let stream) = arguments.value(at: 0) else {
                throw RpcErrorValue(name: "TypeError", message: "readAll expects a readable stream")
            }
            var chunks: [RpcPayload] = []
            for try await chunk in stream {
                chunks.append(chunk)
            }
            return .array(chunks)
        case "writeTo":
            guard case .writable(let stream) = arguments.value(at: 0) else {
                throw RpcErrorValue(name: "TypeError", message: "writeTo expects a writable stream")
            }
            let count = Self.count(arguments.value(at: 1), limit: 8)
            for index in 0..<count {
                try await stream.write(.string("chunk\(index)"))
            }
            try await stream.close()
            return .integer(Int64(count))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }

    func dispose() {
        disposal.dispose("the main object")
    }

    /// `value` as a number; anything else is NaN, as in JavaScript.
    static func number(_ value: RpcPayload) -> Double {
        switch value {
        case .integer(let n): Double(n)
        case .double(let n): n
        default: .nan
        }
    }

    /// `value` as a count from 0 to `limit`.
    static func count(_ value: RpcPayload, limit: Int) -> Int {
        let n = number(value)
        return n.isFinite && n > 0 ? Int(min(n, Double(limit))) : 0
    }
}

/// A counter: `increment(amount = 1)` returns the new value; property `value`.
final class FuzzCounter: RpcTarget {
    private let value: Mutex<Double>
    private let disposal = DisposeOnce()

    init(start: Double) {
        value = Mutex(start.isNaN ? 0 : start)
        FuzzObjects.created()
    }

    deinit { FuzzObjects.destroyed() }

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        guard method == "increment" else { return nil }
        let amount = arguments.value(at: 0)
        let step = amount.isNullish ? 1 : FuzzAPI.number(amount)
        return .double(value.withLock { value in
            value += step
            return value
        })
    }

    func propertyImmediately(_ name: String) throws -> RpcPayload? {
        name == "value" ? .double(value.withLock { $0 }) : nil
    }

    func dispose() {
        disposal.dispose("a counter")
    }
}

/// A user: properties `id` and `profile` (`{displayName, id}`), method `getName()`.
final class FuzzUser: RpcTarget {
    private let id: RpcPayload
    private let disposal = DisposeOnce()

    init(id: RpcPayload) {
        self.id = id
        FuzzObjects.created()
    }

    deinit { FuzzObjects.destroyed() }

    private var name: String { "User \(id)" }

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        method == "getName" ? .string(name) : nil
    }

    func propertyImmediately(_ name: String) throws -> RpcPayload? {
        switch name {
        case "id": id
        case "profile": .object([RpcPayload.Member("displayName", .string(self.name)), RpcPayload.Member("id", id)])
        default: nil
        }
    }

    func dispose() {
        disposal.dispose("a user")
    }
}

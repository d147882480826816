public import CapnWebCore
import Synchronization

/// The conformance test API (`TEST-API.md`): the main object `capnweb serve --demo` exposes,
/// with the same behaviour as the reference peer behind the wire transcript.
///
/// ```swift
/// let server = RpcSession<Any>.start(transport: transport, main: TestAPI())
/// ```
///
/// Reading a member that does not exist gives `undefined`; calling one rejects with a
/// `TypeError`.
public final class TestAPI: RpcTarget {
    /// How many `hang()` calls have started, and how many of them still run.
    private let hangs = Mutex((started: 0, running: 0))

    /// Creates the API.
    public init() {}

    /// How many `hang()` calls this object has started.
    public var hangsStarted: Int {
        hangs.withLock { $0.started }
    }

    /// How many `hang()` calls of this object still run (a call ends when its task is cancelled).
    public var hangsRunning: Int {
        hangs.withLock { $0.running }
    }

    /// Runs the API's methods that do not suspend, on the thread that delivers the call.
    public func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        switch method {
        case "square":
            return Self.multiply(arguments.value(at: 0), arguments.value(at: 0))
        case "add":
            return Self.add(arguments.value(at: 0), arguments.value(at: 1))
        case "echo":
            return arguments.value(at: 0)
        case "returnStub":
            return .stub(try arguments.stub(0))
        case "getUser":
            return .stub(RpcStub(DemoUser(id: arguments.value(at: 0))))
        case "makeCounter":
            return .stub(RpcStub(DemoCounter(start: try Self.number(arguments, 0, default: 0))))
        case "throwError":
            throw RpcErrorValue(name: "Error", message: DemoNumber.text(arguments.value(at: 0)))
        case "throwTypeError":
            throw RpcErrorValue(name: "TypeError", message: DemoNumber.text(arguments.value(at: 0)))
        case "generateFibonacci":
            return .array(Self.fibonacci(try Self.count(arguments, 0)))
        case "returnNull":
            return .null
        case "returnUndefined":
            return .undefined
        case "makeUsers":
            let count = try Self.count(arguments, 0)
            return .array((0..<count).map { .stub(RpcStub(DemoUser(id: .integer(Int64($0 + 1))))) })
        default:
            return nil
        }
    }

    /// Runs the API's methods that may suspend.
    public func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "incrementCounter":
            let counter = Ref<Any>(try arguments.stub(0))
            let amount = try Self.number(arguments, 1, default: 1)
            return try await counter.increment(DemoNumber.payload(amount)).payload()
        case "callback":
            let function = Ref<Any>(try arguments.stub(0))
            return try await function.call([arguments.value(at: 1)]).payload()
        case "hang":
            try await hang()
            return .undefined
        case "delayed":
            let milliseconds = try Self.number(arguments, 0, default: 0)
            if milliseconds > 0 {
                // As `setTimeout` does: a delay past 2^31 - 1 ms (infinity included) is 1 ms.
                let delay = milliseconds > 2_147_483_647 ? 1 : milliseconds
                try await Task.sleep(for: .milliseconds(Int64(delay.rounded())))
            }
            return arguments.value(at: 1)
        case "makeStream":
            let count = try Self.count(arguments, 0)
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
            let count = try Self.count(arguments, 1)
            for index in 0..<count {
                try await stream.write(.string("chunk\(index)"))
            }
            try await stream.close()
            return .integer(Int64(count))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }

    // MARK: Helpers

    /// Suspends until the calling task is cancelled (for example when the session ends), then
    /// throws `CancellationError`.
    private func hang() async throws {
        hangs.withLock {
            $0.started += 1
            $0.running += 1
        }
        defer { hangs.withLock { $0.running -= 1 } }
        await CancellationWait.untilCancelled()
        throw CancellationError()
    }

    /// The first `count` Fibonacci numbers, starting `0, 1`, as the reference computes them:
    /// JavaScript numbers, each the double sum of the two before it.
    ///
    /// They are exact integers up to the 79th (index 78); from there on they are rounded
    /// doubles, sent as JSON numbers the way `JSON.stringify` writes them
    /// (`218922995834555200000` at index 99), and from index 1477 on they are `Infinity`,
    /// sent as `["inf"]`.
    static func fibonacci(_ count: Int) -> [RpcPayload] {
        var result: [RpcPayload] = []
        result.reserveCapacity(count)
        var (current, next): (Double, Double) = (0, 1)
        for _ in 0..<count {
            result.append(DemoNumber.payload(current))
            (current, next) = (next, current + next)
        }
        return result
    }

    /// `a * b` as JavaScript numbers (bigints multiply as bigints when both fit in `Int64`).
    private static func multiply(_ a: RpcPayload, _ b: RpcPayload) -> RpcPayload {
        if case .integer(let x) = a, case .integer(let y) = b {
            let (product, overflow) = x.multipliedReportingOverflow(by: y)
            if !overflow, abs(Double(product)) <= 9_007_199_254_740_992 { return .integer(product) }
        }
        guard let x = DemoNumber.value(a), let y = DemoNumber.value(b) else { return .double(.nan) }
        return DemoNumber.payload(x * y)
    }

    /// `a + b` as JavaScript does it for numbers and strings.
    private static func add(_ a: RpcPayload, _ b: RpcPayload) -> RpcPayload {
        if let x = DemoNumber.value(a), let y = DemoNumber.value(b) {
            return DemoNumber.payload(x + y)
        }
        if case .string = a {
            return .string(DemoNumber.text(a) + DemoNumber.text(b))
        }
        if case .string = b {
            return .string(DemoNumber.text(a) + DemoNumber.text(b))
        }
        return .double(.nan)
    }

    /// Argument `index` as a number, `defaultValue` when missing, `undefined` or `null`.
    private static func number(_ arguments: RpcArguments, _ index: Int, default defaultValue: Double) throws -> Double {
        let value = arguments.value(at: index)
        if value.isNullish { return defaultValue }
        guard let number = DemoNumber.value(value) else {
            throw RpcErrorValue(name: "TypeError", message: "argument \(index) must be a number")
        }
        return number
    }

    /// Argument `index` as a non-negative count.
    private static func count(_ arguments: RpcArguments, _ index: Int) throws -> Int {
        let value = try number(arguments, index, default: 0)
        guard value.isFinite, value >= 0, value <= 10_000_000 else {
            throw RpcErrorValue(name: "RangeError", message: "argument \(index) must be a count")
        }
        return Int(value)
    }
}

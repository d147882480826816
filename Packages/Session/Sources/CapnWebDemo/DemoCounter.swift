public import CapnWebCore
import Synchronization

/// The conformance API's `Counter`: `increment(amount = 1)` returns the new value, and the
/// property `value` reads the current one. Safe to call from concurrent calls.
public final class DemoCounter: RpcTarget {
    private let count: Mutex<Double>

    /// A counter starting at `start`.
    public init(start: Double = 0) {
        self.count = Mutex(start)
    }

    /// The current value.
    public var value: Double {
        count.withLock { $0 }
    }

    /// Adds `amount` and returns the new value.
    @discardableResult
    public func increment(by amount: Double = 1) -> Double {
        count.withLock { count in
            count += amount
            return count
        }
    }

    /// `increment(amount = 1)`, answered at once; any other method rejects with a `TypeError`.
    public func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        switch method {
        case "increment":
            let amount = arguments.value(at: 0)
            if amount.isNullish { return DemoNumber.payload(increment()) }
            guard let step = DemoNumber.value(amount) else {
                throw RpcErrorValue(name: "TypeError", message: "increment expects a number")
            }
            return DemoNumber.payload(increment(by: step))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }

    /// `value`, read at once; any other property is `undefined`.
    public func propertyImmediately(_ name: String) throws -> RpcPayload? {
        name == "value" ? DemoNumber.payload(value) : .undefined
    }
}

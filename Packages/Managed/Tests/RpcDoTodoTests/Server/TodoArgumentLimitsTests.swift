import CapnWeb
import RpcDoTodo
import Testing

/// The Todo API's integer arguments at the limits of Int64 (and doubles past them) are refused
/// with `TypeError` or `RangeError`, or read exactly; none traps the server.
@Suite("Todo API integer arguments at their limits")
struct TodoArgumentLimitsTests {
    /// What `longRunningOperation` answers.
    struct Done: Decodable, Equatable {
        var done: Bool
        var tookMilliseconds: Int
    }

    /// The name of the error `body` threw, or `nil` when it returned.
    private func errorName(_ body: () async throws -> RpcPayload) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as RpcErrorValue {
            return error.name
        } catch {
            return "\(error)"
        }
    }

    @Test("counts and delays at Int64's limits, or past them as doubles, are refused with RangeError or TypeError")
    func countsAndDelays() async throws {
        let api = TodoAPI(store: TodoStore())
        let cases: [(RpcPayload, String)] = [
            (.integer(.max), "RangeError"), (.integer(.min), "RangeError"), (.integer(-1), "RangeError"),
            (.double(9.3e18), "TypeError"), (.double(-9.3e18), "TypeError"), (.double(1e300), "TypeError"),
            (.double(.nan), "TypeError"), (.double(.infinity), "TypeError"), (.string("5"), "TypeError"),
        ]
        for (argument, expected) in cases {
            let name = await errorName { try await api.call("longRunningOperation", with: RpcArguments([argument])) }
            #expect(name == expected, "\(argument)")
        }
    }

    @Test("a maxOperationDelay set to a huge negative or positive Duration bounds longRunningOperation without trapping")
    func extremeDelayLimits() async throws {
        var limits = TodoStoreLimits()
        limits.maxOperationDelay = .seconds(Int64.min)
        let negative = TodoAPI(store: TodoStore(limits: limits))
        #expect(await errorName { try await negative.call("longRunningOperation", with: RpcArguments([.integer(1)])) } == "RangeError")
        let zero = try await negative.call("longRunningOperation", with: RpcArguments([.integer(0)]))
        #expect(try zero.decode(Done.self) == Done(done: true, tookMilliseconds: 0))

        limits.maxOperationDelay = .seconds(Int64.max)
        let huge = TodoAPI(store: TodoStore(limits: limits))
        #expect(await errorName { try await huge.call("longRunningOperation", with: RpcArguments([.integer(.max)])) } == "RangeError")
        let quick = try await huge.call("longRunningOperation", with: RpcArguments([.integer(1)]))
        #expect(try quick.decode(Done.self) == Done(done: true, tookMilliseconds: 1))
    }


    @Test("limits set below their floor after initialisation are clamped, as the initialiser clamps them")
    func limitsClampWhenSet() {
        var limits = TodoStoreLimits()
        limits.maxTodos = .min
        limits.maxUsers = -1
        limits.maxTextLength = -1
        limits.maxListLimit = -5
        limits.maxSubscribers = .min
        limits.subscriberBuffer = 0
        limits.notificationRetention = .min
        limits.logRetention = -3
        limits.maxOperationDelay = .seconds(Int64.min)
        #expect(limits == TodoStoreLimits(
            maxTodos: 0, maxUsers: 0, maxTextLength: 0, maxListLimit: 0, maxSubscribers: 0,
            subscriberBuffer: 1, notificationRetention: 1, logRetention: 1, maxOperationDelay: .zero))
    }
}

/// Where ``RpcRef``'s calls used as another call's argument are declared: only `RpcRef`
/// conforms.
///
/// A call written as an argument in async code, `api.profiles.forUser(userId: api.session().userId)`
/// or `api.f(x: api.g())`, gives the ref through ``dynamicallyCall(withKeywordArguments:)``
/// here, so it is resolved on the server in the same round trip instead of being awaited first.
/// It is declared on a protocol so that it ranks below `RpcRef`'s own overloads where no
/// argument is expected.
public protocol RpcArgumentCalls: Sendable {}

extension RpcArgumentCalls {
    /// Calls the referenced method as another call's argument: the ref, resolved on the server
    /// (no network traffic of its own). Swift picks it only where an ``RpcArgument`` is
    /// expected; it is `async` so that it ranks with the awaiting overloads there.
    nonisolated(nonsending) public func dynamicallyCall(
        withKeywordArguments arguments: KeyValuePairs<String, RpcArgument>
    ) async -> RpcArgument {
        (self as? any ArgumentCallBuilding)?.argumentCall(arguments)
    }
}

/// What ``RpcArgumentCalls`` needs from `RpcRef`.
protocol ArgumentCallBuilding {
    func argumentCall(_ arguments: KeyValuePairs<String, RpcArgument>) -> RpcRef<Any>
}

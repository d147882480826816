internal import RpcWire

/// Replaces the promises inside a received value by their values, as the protocol requires
/// before a value reaches application code.
enum Substitution {
    /// Whether `payload` holds a promise that must be awaited.
    static func needed(_ payload: RpcPayload) -> Bool {
        switch payload {
        case .stub(let stub): return stub.awaitsDelivery
        case .array(let elements): return elements.contains(where: needed)
        case .object(let members): return members.contains { needed($0.value) }
        case .error(let value): return value.properties?.contains { needed($0.value) } ?? false
        case .request(_, _, let body?): return needed(body)
        case .response(let body, _): return needed(body)
        default: return false
        }
    }

    /// `payload` with every promise replaced by its (substituted) value; the first rejection
    /// wins. Does not suspend when there is nothing to await.
    nonisolated(nonsending) static func resolve(_ payload: RpcPayload) async throws(Rejection) -> RpcPayload {
        guard needed(payload) else { return payload }
        switch payload {
        case .stub(let stub):
            let hook = stub.path.isEmpty ? stub.hook : stub.hook.get(stub.path)
            return try await resolve(try await hook.settled().get())
        case .array(let elements):
            var result: [RpcPayload] = []
            result.reserveCapacity(elements.count)
            for element in elements { result.append(try await resolve(element)) }
            return .array(result)
        case .object(let members):
            var result: [RpcPayload.Member] = []
            result.reserveCapacity(members.count)
            for member in members { result.append(RpcPayload.Member(member.key, try await resolve(member.value))) }
            return .object(result)
        case .error(var value):
            if let properties = value.properties {
                var result: [RpcPayload.Member] = []
                for member in properties {
                    result.append(RpcPayload.Member(member.key, try await resolve(member.value)))
                }
                value.properties = result
            }
            return .error(value)
        case .request(let url, let requestInit, let body?):
            return .request(url: url, init: requestInit, body: try await resolve(body))
        case .response(let body, let responseInit):
            return .response(body: try await resolve(body), init: responseInit)
        default:
            return payload
        }
    }

    /// Resolves every argument.
    nonisolated(nonsending) static func resolve(_ arguments: [RpcPayload]) async throws(Rejection) -> [RpcPayload] {
        guard arguments.contains(where: needed) else { return arguments }
        var result: [RpcPayload] = []
        result.reserveCapacity(arguments.count)
        for argument in arguments { result.append(try await resolve(argument)) }
        return result
    }
}

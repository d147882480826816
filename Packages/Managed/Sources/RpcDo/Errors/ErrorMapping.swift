internal import CapnWeb

/// Turns Cap'n Web failures and rejections into RpcDo's ``RpcError``.
enum ErrorMapping {
    /// A rejection, by the error's name; `retryAfter` (seconds) comes from its properties.
    static func map(_ value: RpcErrorValue) -> RpcError {
        byName(value.name, message: value.message, retryAfter: retryAfter(in: value))
    }

    static func byName(_ name: String, message: String, retryAfter: Double? = nil) -> RpcError {
        switch name {
        case "NotFound", "NotFoundError": .notFound(message)
        case "NotImplemented", "NotImplementedError": .notImplemented(message)
        case "Unauthenticated", "AuthenticationError": .authenticationFailed(message)
        case "RateLimitExceeded", "RateLimitError": .rateLimitExceeded(retryAfter: retryAfter)
        default: .remote(type: name, message: message)
        }
    }

    /// The `retryAfter` property in seconds (a number, or a number written as a string), when
    /// it is finite and not negative; anything else is no hint.
    static func retryAfter(in value: RpcErrorValue) -> Double? {
        let seconds: Double? =
            switch value.property("retryAfter") {
            case .integer(let seconds)?: Double(seconds)
            case .double(let seconds)?: seconds
            case .string(let text)?: Double(text)
            default: nil
            }
        guard let seconds, seconds.isFinite, seconds >= 0 else { return nil }
        return seconds
    }

    /// A local failure of the session.
    static func map(_ error: CapnWeb.RpcError) -> RpcError {
        switch error {
        case .remote(let type, let message): byName(type, message: message)
        // A URL or setting the session could not use is reported by Cap'n Web as a connection
        // that was never made, with the transport's error; RpcDo has a case for it.
        case .connectionLost(let underlying as TransportError)
        where underlying.code == .invalidTarget || underlying.code == .tlsConfigurationInvalid:
            .invalidArgument(underlying.message)
        case .connectionLost(let underlying): .connectionLost(underlying.map { "\($0)" })
        case .timeout: .timeout
        case .cancelled: .cancelled
        case .invalidResponse(let detail): .invalidResponse(detail)
        }
    }

    /// A managed connection's failure as the client reports it.
    static func map(_ error: ManagedConnectionError) -> RpcError {
        switch error.code {
        case .timeout: .timeout
        case .cancelled: .cancelled
        case .invalidRequest: .invalidArgument(error.message)
        case .remote: .invalidResponse(error.message)
        case .notConnected, .offlineQueueFull, .connectionLost, .closed: .connectionLost(error.message)
        }
    }

    /// Any error thrown around a call (by an interceptor, for example).
    ///
    /// Only an error the peer sent is remote: an ``RpcError`` passes unchanged, a rejection
    /// value is mapped by its name. An error this process made stays local: a transport's
    /// error is a lost connection (or an argument, for a target that cannot be used), a
    /// decoding failure is ``RpcError/invalidResponse(_:)``, an encoding failure
    /// ``RpcError/invalidArgument(_:)``, and any other error (an interceptor's own) is
    /// ``RpcError/invalidArgument(_:)`` naming its type: the call was refused before an answer
    /// came, and RpcDo's errors carry text, not the error itself.
    static func map(any error: any Error) -> RpcError {
        switch error {
        case let error as RpcError: error
        case let error as CapnWeb.RpcError: map(error)
        case let error as ManagedConnectionError: map(error)
        case let value as RpcErrorValue: map(value)
        case is CancellationError: .cancelled
        case let error as TransportError
        where error.code == .invalidTarget || error.code == .tlsConfigurationInvalid:
            .invalidArgument(error.message)
        case let error as TransportError: .connectionLost(error.description)
        case is DecodingError, is WireError: .invalidResponse("\(error)")
        case is EncodingError: .invalidArgument("\(error)")
        default: .invalidArgument("\(String(describing: type(of: error))): \(error)")
        }
    }

    /// Decodes a result.
    static func decode<V: Decodable>(_ payload: RpcPayload, as type: V.Type) throws(RpcError) -> V {
        do {
            return try payload.decode(V.self)
        } catch {
            throw map(error)
        }
    }
}

/// The one error shape every layer of the stack can be read as.
///
/// Each layer keeps its own error type (``WireError``, the Transport's `TransportError`, Cap'n
/// Web's `RpcError`, …), and each of them conforms to ``RpcFailureConvertible``, so any failure
/// can be turned into an `RpcFailure` and handled in one way:
///
/// - ``code`` is one of sixteen stable codes (the status codes of gRPC), safe to switch over;
/// - ``origin`` says whether this process failed (``Origin/local``) or the peer reported the
///   failure (``Origin/remote``);
/// - ``metadata`` names the layer that failed (`"layer"`) and that layer's own stable code
///   (`"reason"`), with any details the layer adds;
/// - ``cause`` is the layer's original error, kept as an error, so nothing is lost.
///
/// ```swift
/// do {
///     try await work()
/// } catch let error as any RpcFailureConvertible {
///     let failure = error.rpcFailure
///     switch failure.code {
///     case .unavailable, .deadlineExceeded: scheduleRetry()
///     case .unauthenticated: signIn()
///     default: report(failure)
///     }
/// }
/// ```
public struct RpcFailure: Error, Sendable, CustomStringConvertible {
    /// Whether this process failed or the peer reported the failure.
    public enum Origin: String, Hashable, Sendable, CustomStringConvertible {
        /// This process failed: a connection it could not make, an answer it could not decode,
        /// a timeout it measured, a value it refused to send.
        case local
        /// The peer reported the failure: an error answer, a rejection, a close with an error.
        case remote

        /// `local` or `remote`.
        public var description: String { rawValue }
    }

    /// The metadata key naming the layer whose error this failure was made from, for example
    /// `"transport"`.
    public static let layerKey = "layer"
    /// The metadata key holding the layer's own stable code, for example `"connectFailed"`.
    public static let reasonKey = "reason"

    /// The kind of failure, one of the sixteen stable codes.
    public var code: Code
    /// A human-readable reason.
    public var message: String
    /// Whether this process failed or the peer reported the failure.
    public var origin: Origin
    /// Details as text: ``layerKey`` and ``reasonKey``, and whatever else the layer adds.
    public var metadata: [String: String]
    /// The error this failure was made from (a layer's own error), if any.
    public var cause: (any Error)?

    /// Creates a failure.
    public init(
        code: Code,
        message: String,
        origin: Origin,
        metadata: [String: String] = [:],
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.origin = origin
        self.metadata = metadata
        self.cause = cause
    }

    /// The failure any error stands for: its own ``RpcFailureConvertible/rpcFailure`` when it
    /// has one, ``Code/cancelled`` for a `CancellationError`, and otherwise a local
    /// ``Code/unknown`` failure whose ``cause`` is `error`.
    ///
    /// An error nothing knows about is this process's own, so it is never reported as remote.
    public init(_ error: any Error) {
        switch error {
        case let convertible as any RpcFailureConvertible:
            self = convertible.rpcFailure
        case is CancellationError:
            self.init(code: .cancelled, message: "the task was cancelled", origin: .local, cause: error)
        default:
            self.init(code: .unknown, message: "\(error)", origin: .local, cause: error)
        }
    }

    /// The layer's own stable code from ``metadata``, when the layer gave one.
    public var reason: String? { metadata[Self.reasonKey] }

    /// `code (origin): message`, with the layer and its reason when known.
    public var description: String {
        var text = "\(code) (\(origin)): \(message)"
        if let layer = metadata[Self.layerKey], let reason {
            text += " [\(layer).\(reason)]"
        }
        return text
    }
}

extension RpcFailure: RpcFailureConvertible {
    /// The failure itself.
    public var rpcFailure: RpcFailure { self }
}

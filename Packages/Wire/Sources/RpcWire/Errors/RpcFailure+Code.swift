extension RpcFailure {
    /// A stable identifier for the kind of failure: the sixteen status codes of gRPC (without
    /// `ok`).
    ///
    /// Codes are compared by ``rawValue``, which never changes between releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable, CaseIterable {
            case cancelled
            case unknown
            case invalidArgument
            case deadlineExceeded
            case notFound
            case alreadyExists
            case permissionDenied
            case resourceExhausted
            case failedPrecondition
            case aborted
            case outOfRange
            case unimplemented
            case internalError
            case unavailable
            case dataLoss
            case unauthenticated
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// The stable string form of the code, for example `"unavailable"`.
        public var rawValue: String { wrapped.rawValue }

        /// Creates a code from its stable string form; `nil` when no such code exists.
        public init?(rawValue: String) {
            guard let wrapped = Wrapped(rawValue: rawValue) else { return nil }
            self.wrapped = wrapped
        }

        /// The stable string form of the code.
        public var description: String { wrapped.rawValue }

        /// Every code, in declaration order (for exhaustive tests and documentation).
        package static let all: [Code] = Wrapped.allCases.map(Code.init)

        /// The operation was cancelled, usually by its caller.
        public static let cancelled = Code(.cancelled)
        /// The failure fits no other code, or too little is known about it.
        public static let unknown = Code(.unknown)
        /// The caller gave a value that cannot be used, whatever the state of the system.
        public static let invalidArgument = Code(.invalidArgument)
        /// The deadline passed before the operation finished.
        public static let deadlineExceeded = Code(.deadlineExceeded)
        /// Something the operation needs does not exist.
        public static let notFound = Code(.notFound)
        /// Something the operation would create already exists.
        public static let alreadyExists = Code(.alreadyExists)
        /// The caller is known but may not do this.
        public static let permissionDenied = Code(.permissionDenied)
        /// A limit or quota was reached: a queue, a size, a rate.
        public static let resourceExhausted = Code(.resourceExhausted)
        /// The system is not in the state the operation needs; retrying will not help until
        /// that state changes.
        public static let failedPrecondition = Code(.failedPrecondition)
        /// The operation was stopped part way, for example by a conflict.
        public static let aborted = Code(.aborted)
        /// A value is past the range that is valid for it.
        public static let outOfRange = Code(.outOfRange)
        /// The operation is not implemented or not supported.
        public static let unimplemented = Code(.unimplemented)
        /// An invariant was broken: a protocol violation, a value that cannot be read.
        public static let internalError = Code(.internalError)
        /// The service cannot be reached now; trying again later may work.
        public static let unavailable = Code(.unavailable)
        /// Data was lost or corrupted beyond repair.
        public static let dataLoss = Code(.dataLoss)
        /// The caller's credentials are missing or refused.
        public static let unauthenticated = Code(.unauthenticated)

        /// The code that stands for a JSON-RPC 2.0 error code: the reserved codes for a parse
        /// error, an invalid request and invalid params are ``invalidArgument``, method not
        /// found is ``unimplemented``, internal error is ``internalError``; any other code is
        /// ``unknown``.
        public init(jsonRPCCode: Int) {
            switch jsonRPCCode {
            case JSONRPCErrorObject.parseErrorCode, JSONRPCErrorObject.invalidRequestCode,
                JSONRPCErrorObject.invalidParamsCode:
                self = .invalidArgument
            case JSONRPCErrorObject.methodNotFoundCode: self = .unimplemented
            case JSONRPCErrorObject.internalErrorCode: self = .internalError
            default: self = .unknown
            }
        }
    }
}

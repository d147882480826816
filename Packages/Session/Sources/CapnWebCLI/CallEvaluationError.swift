/// Why a parsed `capnweb call` expression cannot be turned into calls, e.g. a member read on a
/// number or a call of a string.
struct CallEvaluationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a sentence fragment.
    var message: String

    /// Creates an error.
    init(_ message: String) {
        self.message = message
    }

    /// The message.
    var description: String { message }
}

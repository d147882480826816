public import Tracing

extension Span {
    /// Marks the span as failed with a stable error code: the status `error` with `message`, the
    /// attribute `rpc.error.code`, and the error itself as an event.
    public func recordFailure(code: String, message: String, error: any Error) {
        attributes["rpc.error.code"] = code
        recordError(error)
        setStatus(SpanStatus(code: .error, message: message))
    }
}

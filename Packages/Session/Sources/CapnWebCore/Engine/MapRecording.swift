internal import RpcWire

/// A `map` callback as recorded instructions (the body of a `remap` expression).
///
/// Inside `instructions`, `0` is the input value, `k > 0` the result of instruction `k` and
/// `-k` capture `k`. The last instruction is the callback's result.
struct MapRecording: Sendable {
    /// The stubs the callback uses, in capture order.
    var captures: [RpcStub]
    /// The instructions, evaluated in order for each input.
    var instructions: [CapnWebExpression]
}

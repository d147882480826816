internal import RpcWire

/// A pipelined operation this side sends to the peer on one of its imports.
enum SessionOperation: Sendable {
    /// `["pipeline", ID, PATH, ARGS]`.
    case call(target: ImportHook, path: [CapnWebPathKey], arguments: [RpcPayload])
    /// `["pipeline", ID, PATH]`.
    case get(target: ImportHook, path: [CapnWebPathKey])
    /// `["remap", ID, PATH, CAPTURES, INSTRUCTIONS]`.
    case map(target: ImportHook, path: [CapnWebPathKey], recording: MapRecording)

    var target: ImportHook {
        switch self {
        case .call(let target, _, _), .get(let target, _), .map(let target, _, _): target
        }
    }

    /// The same operation applied to a local hook.
    func apply(to hook: any StubHook) -> any StubHook {
        switch self {
        case .call(_, let path, let arguments): hook.call(path, arguments)
        case .get(_, let path): hook.get(path)
        case .map(_, let path, let recording): hook.map(path, recording)
        }
    }
}

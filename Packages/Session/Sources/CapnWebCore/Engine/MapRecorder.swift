import Synchronization
internal import RpcWire

/// Records a `map` callback: while it runs, calls on refs become instructions instead of
/// messages. Property reads only extend paths; the callback's result becomes the last
/// instruction.
final class MapRecorder: Sendable {
    /// The recorder of the callback running in this task, if any.
    @TaskLocal static var current: MapRecorder?

    /// How many callbacks are being recorded in the whole process. While it is zero no task
    /// has a recorder, so a call need not look its task's locals up (see ``recording``).
    private static let callbacksRecording = Atomic<Int>(0)

    /// The recorder of the callback running in this task, found without a task-local look-up
    /// when no callback is being recorded anywhere.
    static var recording: MapRecorder? {
        // A callback runs synchronously on the thread that started recording it, after the
        // count went up there, so a relaxed load on that thread sees it.
        callbacksRecording.load(ordering: .relaxed) == 0 ? nil : current
    }

    /// Runs `body` (a callback being recorded) with `recorder` as this task's recorder.
    static func whileRecording<Result>(with recorder: MapRecorder, _ body: () -> Result) -> Result {
        callbacksRecording.add(1, ordering: .relaxed)
        defer { callbacksRecording.subtract(1, ordering: .relaxed) }
        return $current.withValue(recorder, operation: body)
    }

    private struct State {
        var captures: [RpcStub] = []
        var instructions: [CapnWebExpression] = []
    }

    let parent: MapRecorder?
    private let state = Mutex(State())

    init(parent: MapRecorder?) {
        self.parent = parent
    }

    /// The input value, variable 0.
    var input: RpcStub {
        RpcStub(hook: RecordedHook(recorder: self, variable: 0))
    }

    /// Records a call on `stub` and returns a stub for its result.
    func recordCall(_ stub: RpcStub, _ arguments: [RpcPayload]) -> RpcStub {
        let (variable, path) = reference(to: stub)
        let values = arguments.map(expression(for:))
        return append(.pipeline(variable, path: path, arguments: values))
    }

    /// Records a nested map on `stub` and returns a stub for its result.
    func recordMap(_ stub: RpcStub, _ recording: MapRecording) -> RpcStub {
        let (variable, path) = reference(to: stub)
        let captures = recording.captures.map { CapnWebCapture.import(reference(to: $0).variable) }
        return append(.remap(variable, path: path, captures: captures, instructions: recording.instructions))
    }

    /// Finishes the recording with the callback's result.
    func finish(returning result: RpcPayload) -> MapRecording {
        let last = expression(for: result)
        return state.withLock { state in
            MapRecording(captures: state.captures, instructions: state.instructions + [last])
        }
    }

    private func append(_ instruction: CapnWebExpression) -> RpcStub {
        let variable = state.withLock { state -> Int64 in
            state.instructions.append(instruction)
            return Int64(state.instructions.count)
        }
        return RpcStub(hook: RecordedHook(recorder: self, variable: variable))
    }

    /// The variable (and path) naming `stub` inside this callback: one of its own variables,
    /// or a new capture.
    private func reference(to stub: RpcStub) -> (variable: Int64, path: [CapnWebPathKey]) {
        if let recorded = stub.hook as? RecordedHook, recorded.recorder === self {
            return (recorded.variable, stub.path)
        }
        let capture = RpcStub(hook: stub.hook)
        let index = state.withLock { state -> Int64 in
            state.captures.append(capture)
            return -Int64(state.captures.count)
        }
        return (index, stub.path)
    }

    /// A value used inside the callback as an expression.
    private func expression(for payload: RpcPayload) -> CapnWebExpression {
        switch payload {
        case .stub(let stub):
            let (variable, path) = reference(to: stub)
            return .pipeline(variable, path: path.isEmpty ? nil : path)
        case .array(let elements):
            return .array(elements.map(expression(for:)))
        case .object(let members):
            return .object(members.map { CapnWebMember($0.key, expression(for: $0.value)) })
        case .error(let value):
            return .error(name: value.name, message: value.message, stack: value.stack)
        default:
            return PlainValue.expression(payload) ?? .undefined
        }
    }
}

/// A value inside a `map` callback being recorded. It exists only while recording; operations
/// on it outside the callback fail.
final class RecordedHook: StubHook {
    let recorder: MapRecorder
    let variable: Int64

    init(recorder: MapRecorder, variable: Int64) {
        self.recorder = recorder
        self.variable = variable
    }

    var isPromise: Bool { true }

    private var misuse: ErrorHook {
        ErrorHook(.failed(.rejectedLocally("a value from a map callback was used outside the callback")))
    }

    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook { misuse }
    func get(_ path: [CapnWebPathKey]) -> any StubHook { misuse }
    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook { misuse }
    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void) { misuse.whenSettled(body) }
}

extension PlainValue {
    /// Plain payloads as expressions; `nil` for references and streams.
    static func expression(_ payload: RpcPayload) -> CapnWebExpression? {
        switch payload {
        case .null: .null
        case .bool(let value): .bool(value)
        case .integer(let value): .integer(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .undefined: .undefined
        case .bigint(let digits): .bigint(digits)
        case .date(let milliseconds): .date(milliseconds)
        case .bytes(let bytes, let type): .bytes(bytes, type: type)
        case .url(let href): .url(href)
        case .headers(let headers): .headers(headers)
        default: nil
        }
    }
}

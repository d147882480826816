#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// Carries a subject into the `@Sendable` listeners of the registry. Subjects lock their own
/// state, so sending from any thread is safe; the box only vouches for that to the compiler.
final class SubjectBox<Output, Failure: Error>: @unchecked Sendable {
    let subject: CurrentValueSubject<Output?, Failure>

    init() {
        subject = CurrentValueSubject(nil)
    }
}

/// The connection states as a publisher that replays the current one to each new subscriber.
final class StateBroadcaster<State>: @unchecked Sendable {
    let subject: CurrentValueSubject<State, Never>

    init(_ initial: State) {
        subject = CurrentValueSubject(initial)
    }
}

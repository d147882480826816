import Synchronization

/// A thread-safe list that tests append to from any task or thread and read back: what a
/// server received, the states a connection went through, which threads ran a call.
///
/// ```swift
/// let states = Recorder<String>()
/// connection.onChange { states.append("\($0)") }
/// try await waitUntil("connected twice") { states.all.filter { $0 == "connected" }.count == 2 }
/// ```
public final class Recorder<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    /// An empty recorder.
    public init() {}

    /// Appends `item`.
    public func append(_ item: Element) {
        items.withLock { $0.append(item) }
    }

    /// Everything appended so far, in order.
    public var all: [Element] {
        items.withLock { $0 }
    }

    /// How many items have been appended.
    public var count: Int {
        items.withLock { $0.count }
    }
}

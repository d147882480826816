import Synchronization

/// Counts the fuzz target's objects that are alive and the disposals of each, so that a run can
/// check that the session let go of all of them once it ended.
enum FuzzObjects {
    /// Objects of this file's classes currently alive.
    private static let alive = Atomic<Int>(0)

    /// How many are alive now.
    static var live: Int { alive.load(ordering: .acquiring) }

    /// Called from every tracked object's initializer.
    static func created() {
        alive.add(1, ordering: .relaxed)
    }

    /// Called from every tracked object's deinitializer.
    static func destroyed() {
        alive.subtract(1, ordering: .releasing)
    }
}

/// Records that ``RpcTarget/dispose()`` ran at most once for one object, as the session
/// promises.
struct DisposeOnce: ~Copyable {
    private let disposals = Atomic<Int>(0)

    /// Counts a disposal; traps on the second one.
    func dispose(_ what: @autoclosure () -> String) {
        let before = disposals.add(1, ordering: .relaxed).oldValue
        precondition(before == 0, "\(what()) was disposed \(before + 1) times")
    }
}

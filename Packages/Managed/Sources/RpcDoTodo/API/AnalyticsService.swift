import CapnWeb

/// `api.analytics` and `api.dashboard`: property `dashboard` is
/// `{todos, completed, active, users, unreadNotifications}`, property `dailySummary` is
/// `{completedTasks, pendingTasks, nextTask}`.
final class AnalyticsService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func property(_ name: String) async throws -> RpcPayload {
        let counts = store.counts()
        switch name {
        case "dashboard":
            return [
                "todos": .integer(Int64(counts.todos)), "completed": .integer(Int64(counts.completed)),
                "active": .integer(Int64(counts.todos - counts.completed)), "users": .integer(Int64(counts.users)),
                "unreadNotifications": .integer(Int64(counts.unread)),
            ]
        case "dailySummary":
            return .object([
                .init("completedTasks", .integer(Int64(counts.completed))),
                .init("pendingTasks", .integer(Int64(counts.todos - counts.completed))),
                .init("nextTask", try counts.next.map { try RpcPayload(encoding: $0) } ?? .null),
            ])
        default:
            return .undefined
        }
    }
}

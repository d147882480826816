/// Starts tasks that run synchronously on the calling thread until their first suspension, so
/// that work started in a given order begins in that order.
enum ImmediateTask {
    static func start(_ operation: sending @escaping @isolated(any) () async -> Void) {
        #if os(Linux) || os(Windows) || os(Android)
        Task.immediate(operation: operation)
        #else
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            Task.immediate(operation: operation)
        } else {
            Task(operation: operation)
        }
        #endif
    }
}

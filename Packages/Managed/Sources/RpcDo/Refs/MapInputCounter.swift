import Synchronization

/// Numbers for map placeholders.
enum MapInputCounter {
    private static let next = Atomic<UInt64>(0)

    static func take() -> UInt64 {
        next.wrappingAdd(1, ordering: .relaxed).newValue
    }
}

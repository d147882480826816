#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Android)
import Android
#endif

/// A slot that holds one object per thread: each thread reads and writes its own.
///
/// The slot keeps its object alive until the thread sets another or ends. Make slots once (as
/// `static let`s): each takes one of the process's limited thread-specific keys for good.
@_spi(RpcImplementation)
public final class ThreadSpecificReference<Value: AnyObject>: Sendable {
    private let key: pthread_key_t

    /// Makes a slot, empty on every thread.
    public init() {
        var key = pthread_key_t()
        pthread_key_create(&key, releaseThreadSpecificObject)
        self.key = key
    }

    /// The calling thread's object, if it has one.
    @inline(__always)
    public var currentValue: Value? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<Value>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Sets (or with `nil`, clears) the calling thread's object, releasing the one it replaces.
    public func set(_ value: Value?) {
        let previous = pthread_getspecific(key)
        if let previous, let value, Unmanaged<Value>.fromOpaque(previous).takeUnretainedValue() === value { return }
        pthread_setspecific(key, value.map { Unmanaged.passRetained($0).toOpaque() })
        if let previous { Unmanaged<AnyObject>.fromOpaque(previous).release() }
    }
}

#if canImport(Darwin)
/// Frees a thread's object when the thread ends.
private func releaseThreadSpecificObject(_ pointer: UnsafeMutableRawPointer) {
    Unmanaged<AnyObject>.fromOpaque(pointer).release()
}
#else
/// Frees a thread's object when the thread ends.
private func releaseThreadSpecificObject(_ pointer: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    Unmanaged<AnyObject>.fromOpaque(pointer).release()
}
#endif

import CRpcOpenSSL
import Synchronization

/// Masking keys for client frames, drawn from a strong random source in batches.
///
/// RFC 6455 asks for unpredictable keys from a strong source of entropy. Drawing four bytes per
/// frame from the system costs a system call per frame, so keys are taken from a buffer that
/// OpenSSL's generator (a DRBG seeded from the system) refills a batch at a time; the system's
/// own generator is the fallback when OpenSSL fails.
final class MaskingKeyPool: Sendable {
    /// The pool every connection draws from.
    static let shared = MaskingKeyPool()

    /// How many keys one refill draws.
    static let batchSize = 2048

    private struct State {
        var keys: [UInt32] = []
        var next = 0
    }

    private let state = Mutex(State())

    /// The next unused key.
    func next() -> UInt32 {
        state.withLock { state in
            if state.next == state.keys.count {
                state.keys = Self.draw(Self.batchSize)
                state.next = 0
            }
            defer { state.next += 1 }
            return state.keys[state.next]
        }
    }

    private static func draw(_ count: Int) -> [UInt32] {
        var keys = [UInt32](repeating: 0, count: count)
        let drawn = keys.withUnsafeMutableBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress else { return 0 }
            return RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(bytes.count))
        }
        if drawn != 1 {
            var generator = SystemRandomNumberGenerator()
            for index in keys.indices { keys[index] = generator.next() }
        }
        return keys
    }
}

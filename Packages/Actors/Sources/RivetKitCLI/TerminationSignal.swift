import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Waiting for SIGINT or SIGTERM, which then no longer end the process at once.
enum TerminationSignal {
    /// Returns when the process receives SIGINT or SIGTERM.
    static func wait() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let made = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        for await _ in stream { break }
        for source in made { source.cancel() }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

do {
    try await Demo.run()
} catch {
    print("\ndemo failed: \(error)")
    exit(1)
}

import RpcTransport
import Synchronization
import Testing
@testable import CapnWebCore

/// The task that posts an HTTP batch belongs to its transport: closing the transport stops it
/// and waits for it.
@Suite("Closing an HTTP batch transport")
struct BatchTransportCloseTests {
    @Test("closing a batch transport whose request waits for its quiet time stops that wait and returns once the sender has ended")
    func closeStopsTheWaitingSender() async throws {
        let posts = Atomic<Int>(0)
        let prepared = Atomic<Bool>(false)
        let transport = BatchClientTransport(delay: .seconds(600)) { messages throws(TransportError) in
            posts.add(1, ordering: .sequentiallyConsistent)
            return []
        }
        transport.beforePost { prepared.store(true, ordering: .sequentiallyConsistent) }
        transport.start { _ in }
        // A pull starts the quiet time, far longer than the test.
        try transport.enqueue(.text(#"["pull",1]"#))
        await transport.close(code: .normal, reason: "done")
        let senderEnded = prepared.load(ordering: .sequentiallyConsistent)
        let postCount = posts.load(ordering: .sequentiallyConsistent)
        #expect(senderEnded, "the close returned before the sender ended")
        #expect(postCount == 0)
        #expect(transport.state.isClosed)
    }
}

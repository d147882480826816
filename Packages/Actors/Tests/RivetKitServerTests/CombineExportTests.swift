import RivetKit
import Testing

// Only RivetKit (and Testing) imported: the Combine names below come from it, on Linux as on
// Apple platforms.

@Suite("import RivetKit gives the Combine names its API uses")
@MainActor
struct CombineExportTests {
    /// Whatever is an `ObservableObject` can be watched through `objectWillChange`.
    static func watch<Object: ObservableObject>(_ object: Object, into cancellables: inout Set<AnyCancellable>, _ changed: @escaping () -> Void) {
        object.objectWillChange.sink { _ in changed() }.store(in: &cancellables)
    }

    @Test("ObservableObject, Published publishers, AnyPublisher, AnyCancellable and sink work on an ActorObservable")
    func combineNames() {
        let client = RivetKitClient(ClientConfig(endpoint: "http://127.0.0.1:1", disableMetadataLookup: true))
        let actor = ActorObservable(client: client, options: ActorOptions(name: "counter", key: "combine", enabled: false))
        var cancellables = Set<AnyCancellable>()
        var changes = 0
        Self.watch(actor, into: &cancellables) { changes += 1 }
        var statuses: [ActorConnStatus] = []
        let statusPublisher: Published<ActorConnStatus>.Publisher = actor.$connStatus
        statusPublisher.sink { statuses.append($0) }.store(in: &cancellables)
        var errors: [ActorError] = []
        let errorPublisher: AnyPublisher<ActorError, Never> = actor.$error.compactMap { $0 }.eraseToAnyPublisher()
        let subscription: AnyCancellable = errorPublisher.sink { errors.append($0) }

        let error = ActorError(group: "client", code: "config_error", message: "for the test")
        actor.report(error)
        #expect(errors == [error])
        #expect(changes == 1)
        #expect(statuses == [.idle])

        // A cancelled subscription receives nothing more.
        subscription.cancel()
        actor.report(error)
        #expect(errors == [error])
        #expect(changes == 2)
        actor.release()
    }
}

import RpcWire
import Testing
@testable import Tinyvex

/// The optimistic layering as plain values: the table's shown values are the server's with the
/// pending updates replayed in order.
@Suite("Tinyvex optimistic layers (the pure core)")
struct OptimisticLayersTests {
    private static let ignore: SubscriptionTable.Listener = { _ in }

    /// Appends `item` to the list of the query `list {}`.
    private static func append(_ item: String) -> OptimisticLayers.Update {
        { store in
            let list = store.getQuery("list", params: [String: String](), as: [String].self) ?? []
            store.setQuery("list", params: [String: String](), value: list + [item])
        }
    }

    private static func shown(_ deliveries: [SubscriptionTable.Delivery]) -> [JSONValue] {
        deliveries.compactMap { if case .value(let value) = $0.event { value } else { nil } }
    }

    private static func table() throws -> (SubscriptionTable, String) {
        var table = SubscriptionTable()
        let key = try TinyvexClient.canonical("list", [String: String]()).key
        let added = table.add(key: key, name: "list", params: [:], listener: Self.ignore)
        _ = table.receive(subID: added.subID, seq: 1, value: ["server"])
        return (table, added.subID)
    }

    @Test("an update is shown at once; the transition naming its mutation replaces it with the server's value in one step")
    func appliedThenReplaced() throws {
        var (table, subID) = try Self.table()
        #expect(Self.shown(table.addOptimistic(id: "r1", Self.append("mine"))) == [["server", "mine"]])
        // A value that does not include the mutation yet: the update is replayed over it.
        #expect(Self.shown(table.receive(subID: subID, seq: 2, value: ["server", "other"])) == [["server", "other", "mine"]])
        let transition: JSONObject = [
            "version": 3, "changes": [["subId": .string(subID), "seq": 3, "value": ["server", "other", "real"]]], "requestIds": ["r1"],
        ]
        #expect(Self.shown(table.receiveTransition(transition)) == [["server", "other", "real"]])
        #expect(table.optimisticIDs.isEmpty)
        // Its answer, which follows, changes nothing more.
        #expect(table.dropOptimistic(["r1"]).isEmpty)
    }

    @Test("a failed mutation's update is rolled back to the server's value")
    func rolledBack() throws {
        var (table, _) = try Self.table()
        _ = table.addOptimistic(id: "r1", Self.append("mine"))
        #expect(Self.shown(table.dropOptimistic(["r1"])) == [["server"]])
    }

    @Test("two updates in flight compose in order, and dropping the first keeps the second over the server's value")
    func composeInOrder() throws {
        var (table, subID) = try Self.table()
        _ = table.addOptimistic(id: "r1", Self.append("A"))
        #expect(Self.shown(table.addOptimistic(id: "r2", Self.append("B"))) == [["server", "A", "B"]])
        #expect(table.optimisticIDs == ["r1", "r2"])
        let transition: JSONObject = ["version": 2, "changes": [["subId": .string(subID), "seq": 2, "value": ["server", "realA"]]], "requestIds": ["r1"]]
        #expect(Self.shown(table.receiveTransition(transition)) == [["server", "realA", "B"]])
        #expect(Self.shown(table.dropOptimistic(["r2"])) == [["server", "realA"]])
    }

    @Test("a new listener gets the value shown, with the updates; params are matched once canonicalised")
    func newListenerSeesTheView() throws {
        var (table, _) = try Self.table()
        _ = table.addOptimistic(id: "r1", Self.append("mine"))
        let key = try TinyvexClient.canonical("list", [String: String]()).key
        #expect(table.add(key: key, name: "list", params: [:], listener: Self.ignore).current == ["server", "mine"])
    }
}

/// A coding path kept as a chain of parent links, turned into `[any CodingKey]` only when
/// someone asks for it (a `codingPath` property or an error).
///
/// The most recent component is held inline; only appending to a path that already has one
/// allocates a node for it. A value decoded from a container therefore gets its path for
/// free, and a node is allocated only for values that hold further nested values.
struct CodingPath {
    /// One step of a path.
    enum Component {
        /// A key of a keyed container.
        case key(any CodingKey)
        /// A position in an unkeyed container, shown as `Index N`.
        case index(Int)

        /// The component as a coding key.
        var codingKey: any CodingKey {
            switch self {
            case .key(let key): key
            case .index(let index): WireCodingKey(index: index)
            }
        }
    }

    /// A component stored behind a reference, with a link to the components before it.
    final class Node {
        let parent: Node?
        let component: Component
        let count: Int

        init(parent: Node?, component: Component) {
            self.parent = parent
            self.component = component
            self.count = (parent?.count ?? 0) + 1
        }
    }

    /// The components before ``last``.
    private(set) var parent: Node?
    /// The most recent component, or `nil` when it is stored in ``parent`` (or the path is
    /// empty).
    private(set) var last: Component?

    private init(parent: Node?, last: Component?) {
        self.parent = parent
        self.last = last
    }

    /// The empty path.
    static var root: CodingPath { CodingPath(parent: nil, last: nil) }

    /// This path followed by `component`.
    func appending(_ component: Component) -> CodingPath {
        guard let last else {
            return CodingPath(parent: parent, last: component)
        }
        return CodingPath(parent: Node(parent: parent, component: last), last: component)
    }

    /// This path followed by `key`.
    func appending(key: some CodingKey) -> CodingPath {
        appending(.key(key))
    }

    /// The same path with every component stored in nodes, so that appending to it many
    /// times allocates nothing.
    func materialized() -> CodingPath {
        guard let last else { return self }
        return CodingPath(parent: Node(parent: parent, component: last), last: nil)
    }

    /// The path as coding keys.
    var keys: [any CodingKey] {
        keys(appending: nil)
    }

    /// The path followed by `extra`, as coding keys.
    func keys(appending extra: Component?) -> [any CodingKey] {
        let count = (parent?.count ?? 0) + (last == nil ? 0 : 1) + (extra == nil ? 0 : 1)
        var result = [any CodingKey]()
        result.reserveCapacity(count)
        var chain: [Component] = []
        chain.reserveCapacity(count)
        var node = parent
        while let current = node {
            chain.append(current.component)
            node = current.parent
        }
        for component in chain.reversed() {
            result.append(component.codingKey)
        }
        if let last {
            result.append(last.codingKey)
        }
        if let extra {
            result.append(extra.codingKey)
        }
        return result
    }

    /// The path followed by `key`, as coding keys.
    func keys(appending key: some CodingKey) -> [any CodingKey] {
        keys(appending: .key(key))
    }

    /// The path followed by the position `index`, as coding keys.
    func keys(appendingIndex index: Int) -> [any CodingKey] {
        keys(appending: .index(index))
    }
}

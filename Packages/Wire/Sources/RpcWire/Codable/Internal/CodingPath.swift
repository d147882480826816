/// A coding path kept as a chain of parent links, turned into `[any CodingKey]` only when
/// someone asks for it (a `codingPath` property or an error).
///
/// A path is a single reference, so passing it along, saving and restoring it cost one
/// reference count. Only values that are decoded through their own `init(from:)` (or
/// encoded through `encode(to:)`) get a node; scalars read by a container never do.
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

    /// A component with a link to the components before it.
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

    /// The last component, or `nil` for the empty path.
    private let node: Node?

    private init(node: Node?) {
        self.node = node
    }

    /// The empty path.
    static var root: CodingPath { CodingPath(node: nil) }

    /// This path followed by `component`.
    func appending(_ component: Component) -> CodingPath {
        CodingPath(node: Node(parent: node, component: component))
    }

    /// This path followed by `key`.
    func appending(key: some CodingKey) -> CodingPath {
        appending(.key(key))
    }

    /// The path as coding keys.
    var keys: [any CodingKey] {
        keys(appending: nil)
    }

    /// The path followed by `extra`, as coding keys.
    func keys(appending extra: Component?) -> [any CodingKey] {
        let count = (node?.count ?? 0) + (extra == nil ? 0 : 1)
        var result = [any CodingKey]()
        result.reserveCapacity(count)
        var reversed: [Component] = []
        reversed.reserveCapacity(count)
        var current = node
        while let step = current {
            reversed.append(step.component)
            current = step.parent
        }
        for component in reversed.reversed() {
            result.append(component.codingKey)
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
